// Command kube-api-linter runs every analyzer of sigs.k8s.io/kube-api-linter with its default
// configuration as one multichecker, outside golangci-lint (KAL's own binary is a golangci-lint
// plugin build): the referee of `opgen lint` (tests/lint_conformance.rs).
//
//	kube-api-linter -json ./...            # every linter KAL has, default settings
//	KAL_ENABLE=nobools,nofloats kube-api-linter ./...   # only these
package main

import (
	"fmt"
	"go/token"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis"
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
	for i, a := range analyzers {
		analyzers[i] = withoutInvalidFixes(a)
	}
	multichecker.Main(append(analyzers, fromSource)...)
}

// fromSource makes the checker type-check every package the linted ones import from its
// source, in process, instead of loading their export data, which `go list -export` makes by
// compiling each of them (x/tools' checker loads all syntax when an analyzer has facts). The
// findings are the same, byte for byte; on an empty Go build cache, cluster-api's API module
// takes 5 s instead of 32 (59 s of CPU compiling k8s.io/api and the rest), and each corpus
// module pins its own Kubernetes versions, so a fresh machine compiled them all once.
var fromSource = &analysis.Analyzer{
	Name:      "fromsource",
	Doc:       "reports nothing; its fact type makes the checker load every package from source",
	FactTypes: []analysis.Fact{new(noFact)},
	Run:       func(*analysis.Pass) (any, error) { return nil, nil },
}

type noFact struct{}

func (*noFact) AFact() {}

// withoutInvalidFixes reports a's findings with the suggested fixes whose edits lie outside
// every file left out. x/tools' checker panics on such a fix ("no token.File for
// TextEdit.Pos"; KAL's optionalfields makes one on cluster-api-provider-aws), losing every
// finding of the run; golangci-lint, KAL's usual host, does not check fixes. Only the fix is
// dropped, never the finding, and stderr says so.
func withoutInvalidFixes(a *analysis.Analyzer) *analysis.Analyzer {
	wrapped := *a
	wrapped.Run = func(pass *analysis.Pass) (any, error) {
		report := pass.Report
		checked := *pass
		checked.Report = func(d analysis.Diagnostic) {
			fixes := d.SuggestedFixes[:0:0]
			for _, fix := range d.SuggestedFixes {
				if editsInFiles(pass.Fset, fix) {
					fixes = append(fixes, fix)
				} else {
					fmt.Fprintf(os.Stderr, "kube-api-linter: %s at %s: fix %q left out, its edits lie outside every file\n",
						a.Name, pass.Fset.Position(d.Pos), fix.Message)
				}
			}
			d.SuggestedFixes = fixes
			report(d)
		}
		return a.Run(&checked)
	}
	return &wrapped
}

func editsInFiles(fset *token.FileSet, fix analysis.SuggestedFix) bool {
	for _, edit := range fix.TextEdits {
		if !edit.Pos.IsValid() || fset.File(edit.Pos) == nil {
			return false
		}
	}
	return true
}
