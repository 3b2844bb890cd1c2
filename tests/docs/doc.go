// Package docs tests the examples of the provider's documentation, the tests that
// keep them working: every resource and function description in schema.json carries
// a TypeScript, Python, Go, C#, Java and YAML example, as does the registry page
// docs/_index.md, and each snippet is compiled, type-checked or run through a
// preview with the real toolchains. The harness package snippets extracts them, so
// that other suites (the end-to-end migration guide, the Java SDK's) check them too.
//
// The pages are checked as text too: the links of the registry pages, README.md and
// the examples' pages resolve, and what every page says about the provider's versions
// (released, "from" marks, pinned downloads, CHANGELOG.md's compare links) agrees with
// CHANGELOG.md, VERSION and what is published (TestVersionsAgree); every figure they
// quote from BENCHMARKS.md is in it (TestQuotedBenchmarkFigures); and the pages users
// read stay within a word budget (TestUserDocsWordBudget).
package docs
