package cloudauth

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Mode is how a recognised exec plugin is served: the plugin program, tokens made in
// the provider's process, or whichever applies (the default).
type Mode string

// The modes.
const (
	Automatic Mode = "automatic"
	BuiltIn   Mode = "builtIn"
	Exec      Mode = "exec"
)

// Modes are the values of the provider's cloudCredentials setting, which CheckConfig
// accepts as they are spelled here.
var Modes = []Mode{Automatic, BuiltIn, Exec}

// ParseMode reads the cloudCredentials setting; empty means Automatic.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return Automatic, nil
	}
	if m := Mode(s); slices.Contains(Modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("cloudCredentials must be one of %s, not %q", strings.Join(ModeNames(), ", "), s)
}

// ModeNames are Modes as the setting spells them.
func ModeNames() []string {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return names
}

// LookPath finds a program on PATH; tests replace it.
type LookPath func(file string) (string, error)

// Choice is what Decide chose under Mode, and why, in words for the provider's
// diagnostics.
type Choice struct {
	Mode    Mode
	BuiltIn bool
	Reason  string
}

// Decide chooses between the plugin program and a token made in process for p under
// mode: Exec always runs the program, BuiltIn never does, and Automatic runs it when it
// is on PATH (or names a file that exists), else makes the token in process.
func Decide(mode Mode, p Plugin, look LookPath) Choice {
	if look == nil {
		look = exec.LookPath
	}
	switch mode {
	case Exec:
		return Choice{Mode: mode, Reason: "cloudCredentials is exec"}
	case BuiltIn:
		return Choice{Mode: mode, BuiltIn: true, Reason: "cloudCredentials is builtIn"}
	}
	if path, err := look(p.Command); err == nil {
		return Choice{Mode: Automatic, Reason: fmt.Sprintf("%s is on PATH at %s", program(p.Command), path)}
	}
	return Choice{Mode: Automatic, BuiltIn: true, Reason: fmt.Sprintf("%s is not on PATH", program(p.Command))}
}

// Instead says, for p's program that c chose to run and that failed, how to have the
// token made in the provider's process instead: the cloudCredentials setting (or its
// environment variable) that does it. It is "" when c chose no program, and when p's
// login cannot be made in process (a kubelogin login that needs a person).
func Instead(p Plugin, c Choice) string {
	if c.BuiltIn || (p.Cloud == AKS && !containsFold(aksLogins, p.Login)) {
		return ""
	}
	also := ""
	if c.Mode == Exec {
		also = fmt.Sprintf(", or to automatic, which runs %s only when it is on PATH", program(p.Command))
	}
	return fmt.Sprintf("to have the provider make the %s cluster's token in its own process from the cloud's own "+
		"credentials, set its cloudCredentials setting (or PULUMI_ENDPOINTS_CLOUD_CREDENTIALS) to builtIn%s", p.Cloud, also)
}
