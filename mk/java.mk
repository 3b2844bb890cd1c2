# The Java SDK: pulumi-java's generator and language host, pinned in tools/pulumi-java
# and built into the cache; `make gen` writes sdk/java with them, and `make dist-java`
# builds the SDK's jar and pom with Maven into DIST.

PULUMI_JAVA_VERSION  := $(call modver,github.com/pulumi/pulumi-java/pkg,pulumi-java)
PULUMI_LANGUAGE_JAVA := $(CACHE)/pulumi-java-$(PULUMI_JAVA_VERSION)/pulumi-language-java
PULUMI_JAVA_GEN      := $(CACHE)/pulumi-java-$(PULUMI_JAVA_VERSION)/pulumi-java-gen

# Maven keeps its downloads in the cache, and Debian's Maven prints a colour reset after
# its output unless told not to (the Java language host would then misread the plugin
# list it asks Maven for).
MAVEN_REPO := $(CACHE)/maven
MVN        := MAVEN_OPTS="-Dmaven.repo.local=$(MAVEN_REPO) -Djansi.noreset=true" mvn -B -q

$(PULUMI_LANGUAGE_JAVA) $(PULUMI_JAVA_GEN) &: | tools/pulumi-java/go.mod
	@echo "building pulumi-language-java and pulumi-java-gen $(PULUMI_JAVA_VERSION) (about 2 minutes)"
	mkdir -p $(@D)/.tmp
	cd tools/pulumi-java && go build -trimpath -o $(@D)/.tmp/ \
		github.com/pulumi/pulumi-java/pkg/cmd/pulumi-language-java github.com/pulumi/pulumi-java/pkg/cmd/pulumi-java-gen
	mv $(@D)/.tmp/pulumi-language-java $(PULUMI_LANGUAGE_JAVA)
	mv $(@D)/.tmp/pulumi-java-gen $(PULUMI_JAVA_GEN)
	rmdir $(@D)/.tmp

tools: $(PULUMI_LANGUAGE_JAVA) $(PULUMI_JAVA_GEN)

gen: $(PULUMI_JAVA_GEN)
GEN_FLAGS += -java-gen $(PULUMI_JAVA_GEN)

TEST_ENV += TEST_ASSET_PULUMI_LANGUAGE_JAVA=$(PULUMI_LANGUAGE_JAVA) TEST_ASSET_MAVEN_REPO=$(MAVEN_REPO)

JAVA_JAR := $(DIST)/endpoints-$(VERSION).jar
JAVA_POM := $(DIST)/endpoints-$(VERSION).pom
JAVA_SDK_SOURCES := $(shell find sdk/java -type f -not -path 'sdk/java/target/*' 2>/dev/null)

.PHONY: dist-java
dist-java: $(JAVA_JAR) $(JAVA_POM) ## Build the Java SDK's jar and pom into DIST with Maven (com.endpointsprovider:endpoints).

dist: dist-java

# Built in a copy stamped with VERSION under $(SDK_BUILD) (mk/sdk-packages.mk), so
# sdk/java stays as `make gen` wrote it; the jar's entries get SOURCE_DATE_EPOCH's time
# (project.build.outputTimestamp).
$(JAVA_JAR) $(JAVA_POM) &: $(JAVA_SDK_SOURCES) $(BIN_DIR)/.version $(BIN_DIR)/.source-date-epoch
	rm -rf $(SDK_BUILD)/java && mkdir -p $(SDK_BUILD) $(DIST)
	cp -R sdk/java $(SDK_BUILD)/java
	@$(call stamp-sdk,$(SDK_BUILD)/java,java)
	cd $(SDK_BUILD)/java && $(MVN) package -Dproject.build.outputTimestamp=$(SOURCE_DATE_EPOCH)
	cp $(SDK_BUILD)/java/target/endpoints-$(VERSION).jar $(JAVA_JAR)
	cp $(SDK_BUILD)/java/pom.xml $(JAVA_POM)
