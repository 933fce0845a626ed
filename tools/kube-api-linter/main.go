// Command kube-api-linter runs every analyzer of sigs.k8s.io/kube-api-linter with its default
// configuration on the packages its arguments name, outside golangci-lint (KAL's own binary is a
// golangci-lint plugin build): the referee of `opgen lint` (tests/lint_conformance.rs).
//
//	kube-api-linter -json ./...            # every linter KAL has, default settings
//	KAL_ENABLE=nobools,nofloats kube-api-linter ./...   # only these
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/kube-api-linter/pkg/analysis/registry"
	"sigs.k8s.io/kube-api-linter/pkg/config"

	_ "sigs.k8s.io/kube-api-linter/pkg/registration"
)

func main() {
	asJSON := flag.Bool("json", false, "print the findings as JSON, by package and analyzer")
	flag.Parse()
	linters := config.Linters{Enable: []string{"*"}}
	if only := os.Getenv("KAL_ENABLE"); only != "" {
		linters = config.Linters{Enable: strings.Split(only, ","), Disable: []string{"*"}}
	}
	analyzers, err := registry.DefaultRegistry().InitializeLinters(linters, config.LintersConfig{})
	if err != nil {
		fail(err)
	}
	for i, a := range analyzers {
		analyzers[i] = withoutInvalidFixes(a)
	}
	roots, err := load(flag.Args())
	if err != nil {
		fail(err)
	}
	graph, err := checker.Analyze(analyzers, roots, &checker.Options{})
	if err != nil {
		fail(err)
	}
	if *asJSON {
		err = graph.PrintJSON(os.Stdout)
	} else {
		err = graph.PrintText(os.Stdout, -1)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kube-api-linter:", err)
	os.Exit(2)
}

// load type-checks the packages `patterns` name (with their tests, as multichecker does) and
// everything they import from source, the imports without their function bodies.
//
// From source: export data would have `go list -export` compile every import first, and each
// module of the corpus pins its own Kubernetes, so a fresh machine compiled them all once (on
// cluster-api's API module 32 s against 5). Without bodies: the rules read the linted packages'
// syntax and only the types of what they import, and go/types spends most of its time in bodies.
// An import that only bodies used is then reported unused, which go/packages counts as the
// package, and every package importing it, being ill-typed: that report, and no other error, is
// dropped from the imported packages.
func load(patterns []string) ([]*packages.Package, error) {
	listed, err := packages.Load(&packages.Config{Mode: packages.NeedFiles | packages.NeedCompiledGoFiles, Tests: true}, patterns...)
	if err != nil {
		return nil, err
	}
	linted := map[string]bool{}
	for _, p := range listed {
		for _, f := range append(p.GoFiles, p.CompiledGoFiles...) {
			linted[f] = true
		}
	}
	conf := &packages.Config{
		Mode:  packages.LoadAllSyntax | packages.NeedModule,
		Tests: true,
		ParseFile: func(fset *token.FileSet, file string, src []byte) (*ast.File, error) {
			f, err := parser.ParseFile(fset, file, src, parser.AllErrors|parser.ParseComments)
			if f != nil && !linted[file] {
				for _, decl := range f.Decls {
					if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
						fn.Body = panicking
					}
				}
			}
			return f, err
		},
	}
	roots, err := packages.Load(conf, patterns...)
	if err != nil {
		return nil, err
	}
	if len(roots) == 0 {
		return nil, fmt.Errorf("%s matched no packages", strings.Join(patterns, " "))
	}
	packages.Visit(roots, nil, func(p *packages.Package) {
		if len(p.CompiledGoFiles) > 0 && !linted[p.CompiledGoFiles[0]] {
			p.Errors = slices.DeleteFunc(p.Errors, func(e packages.Error) bool {
				return e.Kind == packages.TypeError && strings.HasSuffix(e.Msg, " and not used") && strings.Contains(e.Msg, " imported ")
			})
		}
		p.IllTyped = len(p.Errors) > 0
		for _, imp := range p.Imports {
			p.IllTyped = p.IllTyped || imp.IllTyped
		}
	})
	packages.PrintErrors(roots)
	return roots, nil
}

// panicking is the body an imported function is checked with: a terminating statement (no
// "missing return"), where go/types refuses no body at all for init and generic functions.
var panicking = &ast.BlockStmt{List: []ast.Stmt{&ast.ExprStmt{X: &ast.CallExpr{
	Fun:  ast.NewIdent("panic"),
	Args: []ast.Expr{ast.NewIdent("nil")},
}}}}

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
