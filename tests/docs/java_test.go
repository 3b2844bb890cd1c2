package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/snippets"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/toolchain"
)

// TestJavaExamples compiles every Java snippet of the docs, and the Java SDK
// README's example, with Maven against the Java SDK's release jar (dist/) and
// com.pulumi:pulumi from Maven Central, each snippet in a package of its own; a
// snippet with a misspelt builder method must fail to compile.
func TestJavaExamples(t *testing.T) {
	t.Parallel()
	dist := os.Getenv("TEST_ASSET_DIST")
	repo := os.Getenv("TEST_ASSET_MAVEN_REPO")
	if dist == "" || repo == "" {
		t.Fatal("TEST_ASSET_DIST or TEST_ASSET_MAVEN_REPO is not set: run the tests with `make test`")
	}
	jar := filepath.Join(dist, "endpoints-"+toolchain.ReleaseVersion(t)+".jar")
	if _, err := os.Stat(jar); err != nil {
		t.Fatalf("the Java SDK's jar: %v (run `make dist-java`)", err)
	}
	examples := snippets.Examples(t, "java")
	readme, err := os.ReadFile(filepath.Join(toolchain.RepoRoot(t), "sdk", "java", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readmeCode := regexp.MustCompile("(?s)```java\n(.*?)```").FindSubmatch(readme)
	if readmeCode == nil {
		t.Fatal("sdk/java/README.md has no Java example")
	}
	examples = append(examples, snippets.Example{Source: "sdk/java/README.md", Lang: "java", Name: "sdkReadme", Code: string(readmeCode[1])})
	bad := broken(t, examples, spec.EndpointSliceToken, ".addressType(", ".adressType(")

	env := []string{"MAVEN_OPTS=-Dmaven.repo.local=" + repo + " -Djansi.noreset=true"}
	good := javaProject(t, jar, examples)
	if out, err := toolchain.Command(t.Context(), good, env, "mvn", "-B", "-q", "compile"); err != nil {
		for _, e := range examples {
			if strings.Contains(out, "/"+javaPackage(e)+"/") {
				t.Errorf("javac rejects the example %s", e)
			}
		}
		t.Errorf("mvn compile of the Java examples: %v\n%s", err, out)
	}
	out, err := toolchain.Command(t.Context(), javaProject(t, jar, []snippets.Example{bad}), env, "mvn", "-B", "-q", "compile")
	if err == nil || !strings.Contains(out, "adressType") {
		t.Errorf("mvn compile did not reject the broken snippet (err %v):\n%s", err, out)
	}
}

// javaPackage is the package a snippet is compiled in.
func javaPackage(e snippets.Example) string { return "snippet_" + strings.ToLower(e.Name) }

// javaProject writes a Maven project holding the snippets, each moved from its
// package to one of its own.
func javaProject(t *testing.T, jar string, examples []snippets.Example) string {
	t.Helper()
	dir := t.TempDir()
	toolchain.WriteFile(t, filepath.Join(dir, "pom.xml"), strings.ReplaceAll(javaPom, "JAR", jar))
	declaration := regexp.MustCompile(`(?m)^package [\w.]+;`)
	for _, e := range examples {
		pkg := javaPackage(e)
		code := declaration.ReplaceAllString(e.Code, "package "+pkg+";")
		if !strings.Contains(code, "package "+pkg+";") {
			code = "package " + pkg + ";\n\n" + code
		}
		toolchain.WriteFile(t, filepath.Join(dir, "src", "main", "java", pkg, "App.java"), code)
	}
	return dir
}

const javaPom = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>docs</groupId>
  <artifactId>java-examples</artifactId>
  <version>1</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>com.endpointsprovider</groupId>
      <artifactId>endpoints</artifactId>
      <version>release</version>
      <scope>system</scope>
      <systemPath>JAR</systemPath>
    </dependency>
    <dependency>
      <groupId>com.pulumi</groupId>
      <artifactId>pulumi</artifactId>
      <version>1.16.0</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.13.0</version>
        <configuration>
          <release>17</release>
        </configuration>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-resources-plugin</artifactId>
        <version>3.3.1</version>
      </plugin>
    </plugins>
  </build>
</project>
`
