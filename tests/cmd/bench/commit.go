package main

import (
	"context"
	"os/exec"
	"strings"
)

// sourcePaths are the files a run measures besides the tools: the provider, its
// commands, this program, the module's dependencies and the schema, as pathspecs from
// the repository's top.
var sourcePaths = []string{":(top)provider", ":(top)cmd", ":(top)tests/cmd/bench", ":(top)go.mod", ":(top)go.sum", ":(top)schema.json"}

// sourceCommit names the commit a run measures: the checkout's HEAD in dir, as 12
// hex digits, with " + local changes" when a tracked file of sourcePaths differs from
// it (staged or not; untracked files are not counted), or "unknown" when git cannot
// tell (no git, no repository).
func sourceCommit(ctx context.Context, dir string) string {
	head, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	args := append([]string{"-C", dir, "status", "--porcelain", "--untracked-files=no", "--"}, sourcePaths...)
	changed, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(head))
	if strings.TrimSpace(string(changed)) != "" {
		commit += " + local changes"
	}
	return commit
}
