// olm-validate checks an OLM bundle directory with operator-framework/api's validators
// (default bundle suite plus OperatorHub v2 and good practices) and, unlike operator-verify,
// exits non-zero when any of them reports an error.
//
//	olm-validate <bundle-dir>    # the dir holding manifests/ and metadata/
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: olm-validate <bundle-dir>")
		os.Exit(2)
	}
	// GetBundleFromDir finds no CSV under a relative "." (it works on absolute paths).
	dir, err := filepath.Abs(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	bundle, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: cannot load bundle %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	objs := bundle.ObjectsToValidate()
	validators := validation.DefaultBundleValidators.WithValidators(
		validation.OperatorHubV2Validator,
		validation.GoodPracticesValidator,
	)
	results := validators.Validate(objs...)
	failed := false
	for _, r := range results {
		for _, e := range r.Errors {
			failed = true
			fmt.Printf("ERROR %s: %s\n", r.Name, e.Error())
		}
		for _, w := range r.Warnings {
			fmt.Printf("WARN  %s: %s\n", r.Name, w.Error())
		}
	}
	if failed {
		os.Exit(1)
	}
	fmt.Println("bundle valid")
}
