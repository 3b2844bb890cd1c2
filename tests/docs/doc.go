// Package docs holds the examples of the provider's documentation and the tests that
// keep them working: every resource and function description in schema.json carries
// a TypeScript, Python, Go, C#, Java and YAML example, as does the registry page
// docs/_index.md, and each snippet is compiled, type-checked or run through a
// preview with the real toolchains. Examples extracts the snippets, so that tests of
// other packages (such as the Java SDK's) can check them too.
package docs
