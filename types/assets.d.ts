// Text assets (tool descriptions, skill bodies) are imported with `with { type: "text" }`
// so `bun build --compile` embeds them and Deno reads them from source.
declare module "*.md" {
  const text: string;
  export default text;
}
