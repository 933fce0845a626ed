// Command k8s-schemas writes opgen's data/k8s-schemas.jsonl: controller-gen's own schema of
// every Kubernetes type k8s-openapi exposes, for each supported Kubernetes minor.
//
// It uses controller-tools (the version tools/controller-gen/setup.sh pins) as a library, set
// up as controller-gen's crd generator sets itself up (the crd markers, AddKnownTypes for
// Quantity, IntOrString, Time, ObjectMeta, ...), and loads the Go sources of one small module
// per Kubernetes minor (versions/1.XX/go.mod pins k8s.io/api and friends). The definitions keep
// their references (`{"$ref": "#/definitions/io.k8s.api.core.v1.PodSpec", "description": ...}`),
// which opgen inlines (src/generators/crd/k8s.rs); before writing, every type is inlined here
// the same way and compared with controller-gen's flattened schema of a field of that type, so
// the data plus opgen's inlining is controller-gen's output.
//
//	go run . [-check] [-out FILE] versions/1.33 versions/1.34 ...
//	go run . -imports versions/1.38   # (re)writes imports.go of a new version module
//
// See README.md.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-tools/pkg/crd"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"
)

const (
	k8sOpenapiVersion = "0.29.0"
	controllerTools   = "v0.23.0"
	defPrefix         = "#/definitions/"
)

// typeLine is one line of k8s-openapi-types.jsonl: a type path below `k8s_openapi::`, its
// definition name and the Kubernetes versions k8s-openapi has it in.
type typeLine struct {
	Type     string   `json:"type"`
	Name     string   `json:"name"`
	Versions []string `json:"versions"`
}

func main() {
	out := flag.String("out", "", "where to write the jsonl (default: ../../data/k8s-schemas.jsonl)")
	check := flag.Bool("check", false, "compare with -out instead of writing it; exit 1 if different")
	types := flag.String("types", "k8s-openapi-types.jsonl", "the k8s-openapi type list")
	imports := flag.Bool("imports", false, "write imports.go of each version module and exit")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join("..", "..", "data", "k8s-schemas.jsonl")
	}
	if err := run(*out, *types, *check, *imports, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "k8s-schemas:", err)
		os.Exit(1)
	}
}

func run(out, typesFile string, check, importsOnly bool, dirs []string) error {
	if len(dirs) == 0 {
		return fmt.Errorf("no version module given (e.g. versions/1.33)")
	}
	lines, err := readTypes(typesFile)
	if err != nil {
		return err
	}
	var versions []string
	for _, dir := range dirs {
		versions = append(versions, filepath.Base(dir))
	}
	if importsOnly {
		for i, dir := range dirs {
			if err := writeImports(dir, rootsOf(lines, versions[i])); err != nil {
				return err
			}
		}
		return nil
	}
	var apiVersions []string
	perVersion := make([]map[string][]byte, len(dirs))
	for i, dir := range dirs {
		start := time.Now()
		defs, apiVersion, err := generate(dir, rootsOf(lines, versions[i]))
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		perVersion[i] = defs
		apiVersions = append(apiVersions, apiVersion)
		fmt.Fprintf(os.Stderr, "%s: k8s.io/api %s, %d definitions, %.1fs\n", versions[i], apiVersion, len(defs), time.Since(start).Seconds())
	}
	data, err := render(versions, apiVersions, perVersion, lines)
	if err != nil {
		return err
	}
	if check {
		old, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		if !bytes.Equal(old, data) {
			return fmt.Errorf("%s differs from what controller-tools %s writes for the pinned sources (%d bytes vs %d): regenerate it with tools/k8s-schemas/regen.sh", out, controllerTools, len(old), len(data))
		}
		fmt.Fprintf(os.Stderr, "%s is up to date (%d bytes)\n", out, len(data))
		return nil
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%d bytes)\n", out, len(data))
	return nil
}

func readTypes(path string) ([]typeLine, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []typeLine
	for n, l := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
		var t typeLine
		if err := json.Unmarshal([]byte(l), &t); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		if want := "io.k8s." + pathToDef(t.Type); t.Name != want {
			return nil, fmt.Errorf("%s:%d: %s should be named %s", path, n+1, t.Type, want)
		}
		lines = append(lines, t)
	}
	return lines, nil
}

// pathToDef turns `apiextensions_apiserver::pkg::apis::apiextensions::v1::JSON` into
// `apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON` (below `io.k8s.`).
func pathToDef(path string) string {
	return strings.ReplaceAll(strings.ReplaceAll(path, "::", "."), "_", "-")
}

// defName is the definition name of a Go type: k8s.io/api/core/v1.PodSpec ->
// io.k8s.api.core.v1.PodSpec (the names of Kubernetes' OpenAPI documents and k8s-openapi).
func defName(pkgPath, name string) (string, error) {
	rest, ok := strings.CutPrefix(pkgPath, "k8s.io/")
	if !ok {
		return "", fmt.Errorf("type %s.%s is outside k8s.io", pkgPath, name)
	}
	return "io.k8s." + strings.ReplaceAll(rest, "/", ".") + "." + name, nil
}

type goType struct{ pkg, name string }

// rootsOf lists the Go types behind the k8s-openapi types of one version.
func rootsOf(lines []typeLine, version string) []goType {
	var roots []goType
	for _, l := range lines {
		if !slices.Contains(l.Versions, version) {
			continue
		}
		def := strings.TrimPrefix(l.Name, "io.k8s.")
		dot := strings.LastIndex(def, ".")
		roots = append(roots, goType{"k8s.io/" + strings.ReplaceAll(def[:dot], ".", "/"), def[dot+1:]})
	}
	return roots
}

func packagesOf(roots []goType) []string {
	var pkgs []string
	for _, r := range roots {
		if !slices.Contains(pkgs, r.pkg) {
			pkgs = append(pkgs, r.pkg)
		}
	}
	sort.Strings(pkgs)
	return pkgs
}

// writeImports writes the version module's imports.go, which makes `go mod tidy` record every
// module and checksum the loader needs.
func writeImports(dir string, roots []goType) error {
	var b strings.Builder
	b.WriteString("// Code generated by `go run . -imports`. DO NOT EDIT.\n\n")
	b.WriteString("// Package sources only makes go.mod/go.sum cover the packages k8s-schemas loads.\n")
	b.WriteString("package sources\n\nimport (\n")
	for _, p := range packagesOf(roots) {
		fmt.Fprintf(&b, "\t_ %q\n", p)
	}
	b.WriteString(")\n")
	return os.WriteFile(filepath.Join(dir, "imports.go"), []byte(b.String()), 0o644)
}

// generate returns the definitions of one version (name -> compact JSON with sorted keys) and
// the k8s.io/api version the module resolves.
func generate(dir string, roots []goType) (map[string][]byte, string, error) {
	cfg := &packages.Config{
		Dir: dir,
		Env: append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local"),
	}
	pkgs, err := loader.LoadRootsWithConfig(cfg, packagesOf(roots)...)
	if err != nil {
		return nil, "", err
	}
	byPath := map[string]*loader.Package{}
	for _, p := range pkgs {
		byPath[p.PkgPath] = p
	}
	apiVersion, err := requiredVersion(filepath.Join(dir, "go.mod"), "k8s.io/api")
	if err != nil {
		return nil, "", err
	}

	// Set up as controller-gen's crd generator (pkg/crd/gen.go) and genall do.
	reg := &markers.Registry{}
	if err := crdmarkers.Register(reg); err != nil {
		return nil, "", err
	}
	parser := &crd.Parser{
		Collector: &markers.Collector{Registry: reg},
		Checker:   &loader.TypeChecker{},
		// k8s.io/api has a few float64 fields (e.g. in resource.k8s.io); controller-gen refuses
		// them unless crd:allowDangerousTypes=true, and then writes `type: number`.
		AllowDangerousTypes: true,
	}
	crd.AddKnownTypes(parser)
	parser.PackageOverrides[apiextensionsV1] = overrideJSONSchemaProps(parser.PackageOverrides[apiextensionsV1])
	for _, p := range pkgs {
		parser.NeedPackage(p)
	}

	g := &gen{parser: parser, names: map[crd.TypeIdent]string{}, idents: map[string]crd.TypeIdent{}, defs: map[string]*apiext.JSONSchemaProps{}, merged: map[string]*apiext.JSONSchemaProps{}}
	var rootNames []string
	for _, r := range roots {
		pkg := byPath[r.pkg]
		if pkg == nil {
			return nil, "", fmt.Errorf("package %s not loaded", r.pkg)
		}
		ident := crd.TypeIdent{Package: pkg, Name: r.name}
		if parser.LookupType(pkg, r.name) == nil && !hasKnownSchema(parser, ident) {
			return nil, "", fmt.Errorf("no Go type %s.%s", r.pkg, r.name)
		}
		name, err := g.need(ident)
		if err != nil {
			return nil, "", err
		}
		rootNames = append(rootNames, name)
	}
	if bad := loaderErrors(pkgs); bad != "" {
		return nil, "", fmt.Errorf("controller-tools reports:\n%s", bad)
	}

	out := map[string][]byte{}
	plain := map[string]map[string]any{}
	for name := range g.defs {
		s, err := g.mergeEmbedded(name)
		if err != nil {
			return nil, "", err
		}
		v, err := toJSON(s)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
		plain[name] = v
		out[name], err = marshal(v)
		if err != nil {
			return nil, "", err
		}
	}
	if err := g.verify(rootNames, plain); err != nil {
		return nil, "", err
	}
	return out, apiVersion, nil
}

// requiredVersion reads the version of module from a go.mod's require lines.
func requiredVersion(gomod, module string) (string, error) {
	text, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(text), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && f[0] == module {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("%s does not require %s", gomod, module)
}

func hasKnownSchema(p *crd.Parser, ident crd.TypeIdent) bool {
	_, ok := p.Schemata[ident]
	return ok
}

const apiextensionsV1 = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// overrideJSONSchemaProps adds to controller-gen's override of apiextensions/v1 (JSON) the three
// JSONSchemaPropsOr* unions. Their Go fields have no JSON tags (custom MarshalJSON), so
// controller-gen refuses them; in a CRD they can only be "anything" (their typed branches would
// make the schema non-structural).
func overrideJSONSchemaProps(known crd.PackageOverride) crd.PackageOverride {
	return func(p *crd.Parser, pkg *loader.Package) {
		for _, name := range []string{"JSONSchemaPropsOrArray", "JSONSchemaPropsOrBool", "JSONSchemaPropsOrStringArray"} {
			p.Schemata[crd.TypeIdent{Name: name, Package: pkg}] = apiext.JSONSchemaProps{XPreserveUnknownFields: new(true)}
		}
		known(p, pkg)
	}
}

// tolerated are the errors controller-gen reports for k8s.io sources although it writes a
// schema: the marker at fault just has no effect. A user of controller-gen cannot embed these
// types (controller-gen exits non-zero); opgen takes the schema controller-gen computed. Any
// other error fails the run.
var tolerated = []struct{ msg, why string }{
	// +listType on a []byte (a base64 string in JSON: certificates/v1, apiregistration/v1
	// caBundle) or on a struct (meta/v1 Status.details): the field is not a list.
	{"must apply listType to an array, found ", "the field is not a list"},
	// +k8s:listMapKey next to +listType=atomic (resource.k8s.io): the list stays atomic.
	{"must apply listMapKey to an associative-list", "the list is atomic"},
	// +k8s:enum on a string type whose constants controller-gen does not find (resource.k8s.io
	// DeviceAllocationMode): no enum.
	{"no enum values found for type ", "no enum"},
}

// loaderErrors lists the errors controller-gen would report: as genall does, type errors are
// skipped (they come from the loader's partial type-checking of dependencies).
func loaderErrors(pkgs []*loader.Package) string {
	var b strings.Builder
	raw := make([]*packages.Package, len(pkgs))
	for i, p := range pkgs {
		raw[i] = p.Package
	}
	packages.Visit(raw, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			ok := e.Kind == packages.TypeError || slices.ContainsFunc(tolerated, func(t struct{ msg, why string }) bool {
				return strings.HasPrefix(e.Msg, t.msg)
			})
			if !ok {
				fmt.Fprintf(&b, "  %v\n", e)
			}
		}
	})
	return b.String()
}

type gen struct {
	parser *crd.Parser
	names  map[crd.TypeIdent]string
	idents map[string]crd.TypeIdent
	// Definitions with global references and embedded (inline) structs merged.
	defs map[string]*apiext.JSONSchemaProps
	// The same after mergeEmbedded.
	merged map[string]*apiext.JSONSchemaProps
	// Definitions whose embedded structs are being merged (an embedding cycle is an error).
	merging []string
}

// need computes (once) the definition of ident and, through its references, of every type it
// reaches, and returns its name.
func (g *gen) need(ident crd.TypeIdent) (string, error) {
	if name, ok := g.names[ident]; ok {
		return name, nil
	}
	name, err := defName(ident.Package.PkgPath, ident.Name)
	if err != nil {
		return "", err
	}
	if other, ok := g.idents[name]; ok && other != ident {
		return "", fmt.Errorf("two Go types named %s", name)
	}
	g.names[ident], g.idents[name] = name, ident
	g.parser.NeedSchemaFor(ident)
	raw, ok := g.parser.Schemata[ident]
	if !ok {
		return "", fmt.Errorf("controller-tools has no schema for %s", name)
	}
	s := raw.DeepCopy()
	// References are relative to the package of the type; make them global first.
	var refErr error
	walk(s, func(node *apiext.JSONSchemaProps) {
		if node.Ref == nil || refErr != nil {
			return
		}
		target, err := resolveRef(*node.Ref, ident.Package)
		if err != nil {
			refErr = fmt.Errorf("%s: %w", name, err)
			return
		}
		targetName, err := g.need(target)
		if err != nil {
			refErr = err
			return
		}
		link := defPrefix + targetName
		node.Ref = &link
	})
	if refErr != nil {
		return "", refErr
	}
	g.defs[name] = s
	return name, nil
}

// mergeEmbedded returns definition name with its embedded (inline) structs merged in, as
// controller-gen's flattener does: an embedded field is an `allOf` entry holding a reference;
// the reference becomes `allOf: [target, field without docs]` (preserveFields) and
// FlattenEmbedded merges every allOf into its node. Also sorts the top-level `required`, as
// flattenAllOfInto does whenever a reference to the type is inlined.
func (g *gen) mergeEmbedded(name string) (*apiext.JSONSchemaProps, error) {
	if s, ok := g.merged[name]; ok {
		return s, nil
	}
	if slices.Contains(g.merging, name) {
		return nil, fmt.Errorf("%s embeds itself", name)
	}
	g.merging = append(g.merging, name)
	defer func() { g.merging = g.merging[:len(g.merging)-1] }()
	s := g.defs[name].DeepCopy()
	var err error
	walk(s, func(node *apiext.JSONSchemaProps) {
		for i, e := range node.AllOf {
			if e.Ref == nil || err != nil {
				continue
			}
			var target *apiext.JSONSchemaProps
			target, err = g.mergeEmbedded(strings.TrimPrefix(*e.Ref, defPrefix))
			if err != nil {
				return
			}
			field := e
			field.Ref, field.Description, field.Title, field.ExternalDocs, field.Example = nil, "", "", nil, nil
			desc := target.Description
			if e.Description != "" {
				desc = e.Description
			}
			node.AllOf[i] = apiext.JSONSchemaProps{AllOf: []apiext.JSONSchemaProps{*target.DeepCopy(), field}, Description: desc}
		}
	})
	if err != nil {
		return nil, err
	}
	rec := &recorder{}
	s = crd.FlattenEmbedded(s, rec)
	if len(rec.errs) > 0 {
		return nil, fmt.Errorf("%s: %v", name, rec.errs)
	}
	slices.Sort(s.Required)
	s.Required = slices.Compact(s.Required)
	g.merged[name] = s
	return s, nil
}

type recorder struct{ errs []error }

func (r *recorder) AddError(err error) { r.errs = append(r.errs, err) }

// resolveRef is controller-tools' identFromRef (unexported): a reference is local to pkg or
// names one of its imports.
func resolveRef(ref string, pkg *loader.Package) (crd.TypeIdent, error) {
	typ, pkgName, err := crd.RefParts(ref)
	if err != nil {
		return crd.TypeIdent{}, err
	}
	if pkgName == "" {
		return crd.TypeIdent{Package: pkg, Name: typ}, nil
	}
	imp := pkg.Imports()[pkgName]
	if imp == nil {
		return crd.TypeIdent{}, fmt.Errorf("reference %s: %s does not import %s", ref, pkg.PkgPath, pkgName)
	}
	return crd.TypeIdent{Package: imp, Name: typ}, nil
}

// walk calls f on every schema node below and including s.
func walk(s *apiext.JSONSchemaProps, f func(*apiext.JSONSchemaProps)) {
	if s == nil {
		return
	}
	f(s)
	for k, p := range s.Properties {
		walk(&p, f)
		s.Properties[k] = p
	}
	if s.Items != nil {
		walk(s.Items.Schema, f)
		for i := range s.Items.JSONSchemas {
			walk(&s.Items.JSONSchemas[i], f)
		}
	}
	if s.AdditionalProperties != nil {
		walk(s.AdditionalProperties.Schema, f)
	}
	for _, list := range [][]apiext.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			walk(&list[i], f)
		}
	}
	walk(s.Not, f)
}

// toJSON is the schema as generic JSON, numbers kept exact.
func toJSON(s *apiext.JSONSchemaProps) (map[string]any, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// render writes the jsonl: header, one line per distinct (definition, body) with its versions,
// then the type lines (see README.md, "Data format").
func render(versions, apiVersions []string, perVersion []map[string][]byte, lines []typeLine) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"k8sOpenapiVersion":%q,"versions":%s,"controllerTools":%q,"k8sApi":%s}`+"\n",
		k8sOpenapiVersion, mustJSON(versions), controllerTools, mustJSON(apiVersions))
	names := map[string]bool{}
	for _, defs := range perVersion {
		for n := range defs {
			names[n] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		var bodies [][]byte
		var vs [][]string
		for i, defs := range perVersion {
			body, ok := defs[n]
			if !ok {
				continue
			}
			j := slices.IndexFunc(bodies, func(x []byte) bool { return bytes.Equal(x, body) })
			if j < 0 {
				bodies, vs = append(bodies, body), append(vs, nil)
				j = len(bodies) - 1
			}
			vs[j] = append(vs[j], versions[i])
		}
		for j, body := range bodies {
			fmt.Fprintf(&b, `{"name":%q,"versions":%s,"schema":%s}`+"\n", n, mustJSON(vs[j]), body)
		}
	}
	for _, l := range lines {
		for _, v := range l.Versions {
			i := slices.Index(versions, v)
			if i < 0 {
				return nil, fmt.Errorf("%s: version %s is not generated", l.Type, v)
			}
			if _, ok := perVersion[i][l.Name]; !ok {
				return nil, fmt.Errorf("%s: no definition %s for %s", l.Type, l.Name, v)
			}
		}
		fmt.Fprintf(&b, `{"type":%q,"name":%q,"versions":%s}`+"\n", l.Type, l.Name, mustJSON(l.Versions))
	}
	return b.Bytes(), nil
}

func mustJSON(v any) string {
	b, err := marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// ----------------------------------------------------------------------------- self-check

// verify inlines every root as opgen does (src/generators/crd/k8s.rs) and compares the result
// with controller-gen's flattened schema of a field of that type.
func (g *gen) verify(roots []string, defs map[string]map[string]any) error {
	var diffs []string
	cyclic := 0
	fl := &crd.Flattener{Parser: g.parser, LookupReference: resolveRef}
	for _, name := range roots {
		ident := g.idents[name]
		ours, cut := inline(defs, map[string]any{"$ref": defPrefix + name}, nil)
		if cut {
			// controller-gen leaves `{}` where a type contains itself (and caches that partial
			// result); opgen writes a structural "any object" there instead.
			cyclic++
			continue
		}
		link := crd.TypeRefLink("", ident.Name)
		theirs := crd.FlattenEmbedded(fl.FlattenSchema(apiext.JSONSchemaProps{Ref: &link}, ident.Package), ident.Package)
		tv, err := toJSON(theirs)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(ours, any(tv)) {
			o, _ := marshal(ours)
			t, _ := marshal(tv)
			diffs = append(diffs, fmt.Sprintf("%s: %s\n    ours:           %.300s\n    controller-gen: %.300s", name, firstDiff(ours, tv, ""), o, t))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%d of %d types inline differently from controller-gen:\n  %s", len(diffs), len(roots), strings.Join(diffs, "\n  "))
	}
	fmt.Fprintf(os.Stderr, "  %d types inline exactly as controller-gen flattens them (%d recursive ones not compared)\n", len(roots)-cyclic, cyclic)
	return nil
}

// inline is opgen's inlining: a reference is replaced by its definition, and the keys next to
// it replace the definition's, but for `x-kubernetes-validations`, which go before the
// definition's. It reports whether a type contained itself.
func inline(defs map[string]map[string]any, node any, stack []string) (any, bool) {
	obj, ok := node.(map[string]any)
	if !ok {
		return node, false
	}
	if ref, ok := obj["$ref"].(string); ok {
		target := strings.TrimPrefix(ref, defPrefix)
		if slices.Contains(stack, target) {
			return map[string]any{}, true
		}
		def, ok := defs[target]
		if !ok {
			panic("dangling reference " + ref)
		}
		v, cut := inline(defs, def, append(stack, target))
		out := v.(map[string]any)
		for k, s := range obj {
			switch k {
			case "$ref":
			case "x-kubernetes-validations":
				// the field's rules, then the type's (flattenAllOfInto)
				rules, _ := out[k].([]any)
				out[k] = append(slices.Clone(s.([]any)), rules...)
			default:
				out[k] = s
			}
		}
		return out, cut
	}
	out := make(map[string]any, len(obj))
	cut := false
	for k, v := range obj {
		switch k {
		case "properties":
			props := map[string]any{}
			for p, s := range v.(map[string]any) {
				var c bool
				props[p], c = inline(defs, s, stack)
				cut = cut || c
			}
			out[k] = props
		case "items", "additionalProperties", "not":
			var c bool
			out[k], c = inline(defs, v, stack)
			cut = cut || c
		case "allOf", "anyOf", "oneOf":
			var list []any
			for _, s := range v.([]any) {
				x, c := inline(defs, s, stack)
				list = append(list, x)
				cut = cut || c
			}
			out[k] = list
		default:
			out[k] = v
		}
	}
	return out, cut
}

// firstDiff is the path of the first difference between two JSON values, for messages.
func firstDiff(a, b any, path string) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !reflect.DeepEqual(am[k], bm[k]) {
				return firstDiff(am[k], bm[k], path+"/"+k)
			}
		}
	}
	x, _ := marshal(a)
	y, _ := marshal(b)
	return fmt.Sprintf("%s: ours %.200s, controller-gen %.200s", path, x, y)
}
