"""Reports C# syntax errors with tree-sitter-c-sharp: the C# SDK cannot be compiled
here (no .NET toolchain), so its files and the README example are at least parsed.
Usage: python parse_cs.py FILE...; exits 1 when any file has a syntax error."""

import pathlib
import sys

import tree_sitter
import tree_sitter_c_sharp

parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_c_sharp.language()))
bad = 0
for path in sys.argv[1:]:
    tree = parser.parse(pathlib.Path(path).read_bytes())
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            line, col = node.start_point
            print(f"{path}:{line + 1}:{col + 1}: syntax error near {node.text[:60]!r}")
            bad += 1
            break
        if node.has_error:
            stack.extend(node.children)
print(f"parsed {len(sys.argv) - 1} files, {bad} with syntax errors")
sys.exit(1 if bad else 0)
