import pkg from "../package.json" with { type: "json" };

/** The product version, from package.json (embedded in the compiled binary). */
export const VERSION: string = pkg.version;
export const PRODUCT = "shiro-neko";
