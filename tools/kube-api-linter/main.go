// Command kube-api-linter runs every analyzer of sigs.k8s.io/kube-api-linter with its default
// configuration as one multichecker, outside golangci-lint (KAL's own binary is a golangci-lint
// plugin build): the referee of `opgen lint` (tests/lint_conformance.rs).
//
//	kube-api-linter -json ./...            # every linter KAL has, default settings
//	KAL_ENABLE=nobools,nofloats kube-api-linter ./...   # only these
package main

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis/multichecker"
	"sigs.k8s.io/kube-api-linter/pkg/analysis/registry"
	"sigs.k8s.io/kube-api-linter/pkg/config"

	_ "sigs.k8s.io/kube-api-linter/pkg/registration"
)

func main() {
	linters := config.Linters{Enable: []string{"*"}}
	if only := os.Getenv("KAL_ENABLE"); only != "" {
		linters = config.Linters{Enable: strings.Split(only, ","), Disable: []string{"*"}}
	}
	analyzers, err := registry.DefaultRegistry().InitializeLinters(linters, config.LintersConfig{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube-api-linter:", err)
		os.Exit(2)
	}
	multichecker.Main(analyzers...)
}
