// Package snippets extracts the code examples of the provider's documentation: those
// of every resource and function description in schema.json, of the registry page
// docs/_index.md, and of the Markdown pages that show programs (Pages). The docs suite
// checks each snippet with the real toolchains, and other suites (the end-to-end
// migration guide, the Java SDK's) check them too; it holds no tests of the product.
package snippets
