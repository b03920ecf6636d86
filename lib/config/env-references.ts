/**
 * `${VAR}` and `${VAR:-default}` in configuration strings (MCP server entries, provider headers),
 * as Claude Code expands them in `.mcp.json`: `${VAR}` is the variable's value, `${VAR:-default}`
 * the value when set and not empty, else `default`. Cursor's spelling `${env:VAR}` is the same as
 * `${VAR}`. A `${VAR}` with no value and no default is an error naming the variable, so nothing
 * starts with an empty token.
 */
const _REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `text` with every reference expanded from `env`; throws naming the first variable that has no value. */
export function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(_REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (fallback !== undefined) return value === undefined || value === "" ? fallback : value;
    if (value === undefined) throw new Error(`environment variable ${name} is not set (referenced as \${${name}}); set it or write \${${name}:-default}`);
    return value;
  });
}
