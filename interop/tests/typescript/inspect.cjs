// Reads TypeScript files with the compiler's own parser and prints, as JSON, every JSDoc
// comment (the declaration it belongs to, its block tags, the targets of its inline tags) and
// how many `any` keywords the files contain.
//
// Usage: node inspect.cjs <typescript package folder> <file.ts>...

"use strict";

const fs = require("node:fs");
const [typescriptPath, ...files] = process.argv.slice(2);
const ts = require(typescriptPath);

/** The targets of the inline tags (`{@link x}`) of a comment. */
function inline(comment, out) {
  if (comment === undefined || typeof comment === "string") {
    return;
  }
  for (const part of comment) {
    if (part.kind !== ts.SyntaxKind.JSDocText) {
      out.push(part.name === undefined ? "" : part.name.getText());
    }
  }
}

/** The name of a declaration, or its kind. */
function nameOf(node) {
  if (ts.isVariableStatement(node)) {
    return node.declarationList.declarations[0].name.getText();
  }
  return node.name === undefined ? ts.SyntaxKind[node.kind] : node.name.getText();
}

const docs = [];
let anyKeywords = 0;
for (const file of files) {
  const text = fs.readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const visit = (node) => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) {
      anyKeywords += 1;
    }
    for (const doc of node.jsDoc ?? []) {
      const links = [];
      inline(doc.comment, links);
      const tags = [];
      for (const tag of doc.tags ?? []) {
        tags.push(tag.tagName.text);
        inline(tag.comment, links);
      }
      docs.push({ file, name: nameOf(node), tags, links });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
console.log(JSON.stringify({ docs, anyKeywords }));
