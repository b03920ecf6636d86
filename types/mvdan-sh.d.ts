// The part of mvdan-sh (mvdan/sh's syntax package compiled to JS) that lib/shell/ uses.
// Node fields carry Go's names; positions are byte offsets into the UTF-8 source.
declare module "mvdan-sh" {
  export interface ShPos {
    Offset(): number;
  }
  export interface ShNode {
    Pos(): ShPos;
    End(): ShPos;
    [field: string]: any;
  }
  export interface ShParser {
    /** Throws (a Go error value, not always an Error) when the source does not parse. */
    Parse(source: string, name: string): ShNode;
  }
  export interface ShSyntax {
    NewParser(...options: unknown[]): ShParser;
    Variant(variant: unknown): unknown;
    LangBash: unknown;
    NodeType(node: ShNode): string;
    /** Calls visit for every node, depth first; returning false skips its children. */
    Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
  }
  const sh: { syntax: ShSyntax };
  export default sh;
}
