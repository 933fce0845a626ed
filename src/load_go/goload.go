// goload: the Go side of `opgen import go`. It loads Go API packages the way controller-gen
// sees them and prints them as JSON for opgen: types with their doc comments, the marker
// comments controller-gen associates with each type, field and package, struct tags, and
// constants. Only the standard library is used, so opgen builds it offline with any Go
// toolchain; `go list` resolves packages through the module's go.mod and the module cache.
//
// Usage: goload <dir> <package pattern>...   (JSON on stdout; errors as JSON too)
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

type Marker struct {
	Text string `json:"text"`
	Pos
	// From the node's own doc comment (never reassigned to the package).
	Godoc bool `json:"godoc"`
}

type Comment struct {
	Text string `json:"text"`
	Line int    `json:"line"`
}

// Expr is a type expression: exactly one member is set.
type Expr struct {
	Ident   string  `json:"ident,omitempty"`
	Qual    *Qual   `json:"qual,omitempty"`
	Pointer *Expr   `json:"pointer,omitempty"`
	Slice   *Expr   `json:"slice,omitempty"`
	Array   *Expr   `json:"array,omitempty"`
	Map     []*Expr `json:"map,omitempty"`
	Struct  []Field `json:"struct,omitempty"`
	// An empty struct, so `struct` above is not omitted as empty.
	EmptyStruct bool   `json:"emptyStruct,omitempty"`
	Other       string `json:"other,omitempty"`
}

type Qual struct {
	Path string `json:"path"`
	Name string `json:"name"`
}

type Field struct {
	// Empty for an embedded field.
	Name     string    `json:"name"`
	Tag      string    `json:"tag"`
	Doc      []Comment `json:"doc"`
	Markers  []Marker  `json:"markers"`
	Type     Expr      `json:"type"`
	Exported bool      `json:"exported"`
	Pos
}

type TypeDecl struct {
	Name    string    `json:"name"`
	Doc     []Comment `json:"doc"`
	Markers []Marker  `json:"markers"`
	Type    Expr      `json:"type"`
	Alias   bool      `json:"alias"`
	Generic bool      `json:"generic"`
	// The package declares MarshalJSON on the type or its pointer: its JSON is its own.
	MarshalJSON bool `json:"marshalJSON"`
	Pos
}

type Const struct {
	Name  string    `json:"name"`
	Type  *Expr     `json:"type,omitempty"`
	Value string    `json:"value"`
	Doc   []Comment `json:"doc"`
	Pos
}

type Package struct {
	Path          string     `json:"path"`
	Name          string     `json:"name"`
	Dir           string     `json:"dir"`
	Module        string     `json:"module"`
	ModuleDir     string     `json:"moduleDir"`
	ModuleVersion string     `json:"moduleVersion"`
	Root          bool       `json:"root"`
	Markers       []Marker   `json:"markers"`
	Types         []TypeDecl `json:"types"`
	Consts        []Const    `json:"consts"`
	Errors        []Problem  `json:"errors"`
	imports       map[string]bool
	// Receiver type names of the package's MarshalJSON methods.
	marshalers map[string]bool
}

type Problem struct {
	Message string `json:"message"`
	Pos
}

type Output struct {
	Packages []*Package `json:"packages"`
	Errors   []Problem  `json:"errors"`
}

type listed struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Goroot     bool
	Standard   bool
	Module     *struct {
		Path    string
		Dir     string
		Version string
	}
	Error *struct {
		Pos string
		Err string
	}
}

var dir string

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: goload <dir> <package pattern>...")
		os.Exit(2)
	}
	dir = os.Args[1]
	out := Output{Packages: []*Package{}, Errors: []Problem{}}
	roots, err := goList(os.Args[2:])
	if err != nil {
		out.Errors = append(out.Errors, Problem{Message: err.Error()})
		emit(out)
		return
	}
	seen := map[string]bool{}
	var queue []listed
	for _, l := range roots {
		if l.Error != nil {
			out.Errors = append(out.Errors, listProblem(l))
			continue
		}
		seen[l.ImportPath] = true
		queue = append(queue, l)
	}
	root := map[string]bool{}
	for _, l := range queue {
		root[l.ImportPath] = true
	}
	// Packages the roots' types name, and theirs, until none is new.
	for len(queue) > 0 {
		var next []string
		for _, l := range queue {
			p := load(l)
			p.Root = root[l.ImportPath]
			out.Packages = append(out.Packages, p)
			for imp := range p.imports {
				if !seen[imp] {
					seen[imp] = true
					next = append(next, imp)
				}
			}
		}
		queue = nil
		if len(next) == 0 {
			break
		}
		sort.Strings(next)
		more, err := goList(next)
		if err != nil {
			out.Errors = append(out.Errors, Problem{Message: err.Error()})
			break
		}
		for _, l := range more {
			if l.Standard || l.Goroot {
				continue
			}
			if l.Error != nil {
				out.Errors = append(out.Errors, listProblem(l))
				continue
			}
			queue = append(queue, l)
		}
	}
	sort.Slice(out.Packages, func(i, j int) bool { return out.Packages[i].Path < out.Packages[j].Path })
	emit(out)
}

func emit(out Output) {
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func listProblem(l listed) Problem {
	p := Problem{Message: fmt.Sprintf("package %s: %s", l.ImportPath, strings.TrimSpace(l.Error.Err))}
	if parts := strings.Split(l.Error.Pos, ":"); len(parts) >= 2 {
		p.File = parts[0]
		p.Line, _ = strconv.Atoi(parts[1])
		if len(parts) >= 3 {
			p.Col, _ = strconv.Atoi(parts[2])
		}
	}
	return p
}

func goList(patterns []string) ([]listed, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Name,Dir,GoFiles,Goroot,Standard,Module,Error"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v: %s", strings.Join(patterns, " "), err, strings.TrimSpace(stderr.String()))
	}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	var res []listed
	for dec.More() {
		var l listed
		if err := dec.Decode(&l); err != nil {
			return nil, err
		}
		res = append(res, l)
	}
	return res, nil
}

func load(l listed) *Package {
	p := &Package{Path: l.ImportPath, Name: l.Name, Dir: l.Dir, Markers: []Marker{}, Types: []TypeDecl{}, Consts: []Const{}, Errors: []Problem{}, imports: map[string]bool{}, marshalers: map[string]bool{}}
	if l.Module != nil {
		p.Module, p.ModuleDir, p.ModuleVersion = l.Module.Path, l.Module.Dir, l.Module.Version
	}
	fset := token.NewFileSet()
	files := append([]string(nil), l.GoFiles...)
	sort.Strings(files)
	for _, name := range files {
		path := filepath.Join(l.Dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if list, ok := err.(scanner.ErrorList); ok {
			for _, e := range list {
				p.Errors = append(p.Errors, Problem{Message: e.Msg, Pos: Pos{File: e.Pos.Filename, Line: e.Pos.Line, Col: e.Pos.Column}})
			}
			continue
		} else if err != nil {
			p.Errors = append(p.Errors, Problem{Message: err.Error(), Pos: Pos{File: path}})
			continue
		}
		loadFile(p, fset, f)
	}
	for i := range p.Types {
		p.Types[i].MarshalJSON = p.marshalers[p.Types[i].Name]
	}
	return p
}

// receiverName is the type a method's receiver names: T, *T, T[P] or *T[P].
func receiverName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func position(fset *token.FileSet, pos token.Pos) Pos {
	at := fset.Position(pos)
	return Pos{File: at.Filename, Line: at.Line, Col: at.Column}
}

type fileLoader struct {
	p       *Package
	fset    *token.FileSet
	imports map[string]string
	markers map[ast.Node][]Marker
}

func loadFile(p *Package, fset *token.FileSet, f *ast.File) {
	fl := &fileLoader{p: p, fset: fset, imports: map[string]string{}}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := defaultName(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		fl.imports[name] = path
	}
	fl.markers = associate(fset, f)
	p.Markers = append(p.Markers, fl.markers[f]...)
	for _, decl := range f.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok {
			if fd.Recv != nil && len(fd.Recv.List) == 1 && fd.Name.Name == "MarshalJSON" {
				if name := receiverName(fd.Recv.List[0].Type); name != "" {
					p.marshalers[name] = true
				}
			}
			continue
		}
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				doc := s.Doc
				if gd.Lparen == token.NoPos {
					doc = gd.Doc
				}
				if !s.Name.IsExported() {
					continue
				}
				p.Types = append(p.Types, TypeDecl{
					Name:    s.Name.Name,
					Doc:     comments(fset, doc),
					Markers: nonNil(fl.markers[s]),
					Type:    fl.expr(s.Type),
					Alias:   s.Assign != token.NoPos,
					Generic: s.TypeParams != nil && len(s.TypeParams.List) > 0,
					Pos:     position(fset, s.Name.Pos()),
				})
			case *ast.ValueSpec:
				if gd.Tok != token.CONST {
					continue
				}
				fl.consts(gd, s)
			}
		}
	}
}

// consts records exported constants with a literal value (a typed const block's later names
// repeat the type of the first only through iota, which is left out).
func (fl *fileLoader) consts(gd *ast.GenDecl, s *ast.ValueSpec) {
	doc := s.Doc
	if doc == nil && gd.Lparen == token.NoPos {
		doc = gd.Doc
	}
	for i, name := range s.Names {
		if !name.IsExported() || i >= len(s.Values) {
			continue
		}
		lit, ok := s.Values[i].(*ast.BasicLit)
		if !ok {
			continue
		}
		value := lit.Value
		if lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil {
				b, _ := json.Marshal(v)
				value = string(b)
			}
		}
		c := Const{Name: name.Name, Value: value, Doc: comments(fl.fset, doc), Pos: position(fl.fset, name.Pos())}
		if s.Type != nil {
			t := fl.expr(s.Type)
			c.Type = &t
		}
		fl.p.Consts = append(fl.p.Consts, c)
	}
}

func nonNil(m []Marker) []Marker {
	if m == nil {
		return []Marker{}
	}
	return m
}

func comments(fset *token.FileSet, g *ast.CommentGroup) []Comment {
	res := []Comment{}
	if g == nil {
		return res
	}
	for _, c := range g.List {
		res = append(res, Comment{Text: c.Text, Line: fset.Position(c.Slash).Line})
	}
	return res
}

// defaultName is the name an import without one is known by: its last element, without a
// major-version suffix (`/v2`) or a `.v2`/`go-` decoration (the Go convention).
func defaultName(path string) string {
	parts := strings.Split(path, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && isDigits(last[1:]) && !strings.HasPrefix(path, "k8s.io/") && !strings.Contains(path, "/apis/") && !strings.Contains(path, "/api/") {
		last = parts[len(parts)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	last = strings.TrimPrefix(last, "go-")
	return strings.ReplaceAll(last, "-", "_")
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func (fl *fileLoader) expr(e ast.Expr) Expr {
	switch t := e.(type) {
	case *ast.Ident:
		return Expr{Ident: t.Name}
	case *ast.SelectorExpr:
		pkg, ok := t.X.(*ast.Ident)
		if !ok {
			return Expr{Other: "selector"}
		}
		path, ok := fl.imports[pkg.Name]
		if !ok {
			return Expr{Other: pkg.Name + "." + t.Sel.Name}
		}
		fl.p.imports[path] = true
		return Expr{Qual: &Qual{Path: path, Name: t.Sel.Name}}
	case *ast.StarExpr:
		inner := fl.expr(t.X)
		return Expr{Pointer: &inner}
	case *ast.ArrayType:
		inner := fl.expr(t.Elt)
		if t.Len != nil {
			return Expr{Array: &inner}
		}
		return Expr{Slice: &inner}
	case *ast.MapType:
		k, v := fl.expr(t.Key), fl.expr(t.Value)
		return Expr{Map: []*Expr{&k, &v}}
	case *ast.StructType:
		fields := []Field{}
		for _, f := range t.Fields.List {
			tag := ""
			if f.Tag != nil {
				tag, _ = strconv.Unquote(f.Tag.Value)
			}
			ty := fl.expr(f.Type)
			base := Field{Tag: tag, Doc: comments(fl.fset, f.Doc), Markers: nonNil(fl.markers[f]), Type: ty}
			if len(f.Names) == 0 {
				base.Pos = position(fl.fset, f.Type.Pos())
				base.Exported = true
				fields = append(fields, base)
				continue
			}
			for _, n := range f.Names {
				field := base
				field.Name = n.Name
				field.Exported = n.IsExported()
				field.Pos = position(fl.fset, n.Pos())
				fields = append(fields, field)
			}
		}
		return Expr{Struct: fields, EmptyStruct: len(fields) == 0}
	case *ast.InterfaceType:
		return Expr{Other: "interface"}
	case *ast.IndexExpr, *ast.IndexListExpr:
		return Expr{Other: "generic"}
	case *ast.ParenExpr:
		return fl.expr(t.X)
	default:
		return Expr{Other: fmt.Sprintf("%T", e)}
	}
}

// associate gives each type spec, struct field and the file (the package) the marker comments
// controller-gen associates with it: a marker belongs to a node when it is in the node's doc
// comment, or in the closest comment group above the node that is not its doc (for a type or
// field); other markers outside declarations belong to the package. The caller moves a
// non-doc marker of a type to the package when only a package marker has its name.
func associate(fset *token.FileSet, f *ast.File) map[ast.Node][]Marker {
	a := &associator{fset: fset, groups: f.Comments, byNode: map[ast.Node][]Marker{}}
	ast.Walk(&walker{a: a, packageLevel: true}, f)
	a.byNode[f] = append(a.pkg, a.between(false, a.next, len(a.groups))...)
	return a.byNode
}

type associator struct {
	fset   *token.FileSet
	groups []*ast.CommentGroup
	// The first comment group not yet given to a node.
	next int
	// The trailing comment of the node before, which belongs to nobody.
	trailing *ast.CommentGroup
	// Markers above a single-spec `type` declaration, for its type spec.
	pending []Marker
	pkg     []Marker
	byNode  map[ast.Node][]Marker
}

func (a *associator) between(godoc bool, from, to int) []Marker {
	var res []Marker
	for i := from; i >= 0 && i < to; i++ {
		for _, c := range a.groups[i].List {
			if !strings.HasPrefix(c.Text, "//") {
				continue
			}
			text := strings.TrimSpace(c.Text[2:])
			if !strings.HasPrefix(text, "+") {
				continue
			}
			res = append(res, Marker{Text: text, Pos: position(a.fset, c.Slash), Godoc: godoc})
		}
	}
	return res
}

type walker struct {
	a            *associator
	node         ast.Node
	packageLevel bool
}

func (w *walker) Visit(node ast.Node) ast.Visitor {
	a := w.a
	if node == nil {
		// Leaving a node: comments inside it belong to nobody, unless it is the file.
		if !w.packageLevel {
			for a.next < len(a.groups) && a.groups[a.next].Pos() < w.node.End() {
				a.next++
			}
		}
		return nil
	}
	if a.trailing != nil && a.next < len(a.groups) && a.trailing.Pos() == a.groups[a.next].Pos() {
		a.next++
	}
	// The comment groups before this node: the last (closest) is its doc when the parser
	// says so; the closest other one holds markers for types and fields.
	last := a.next
	for last < len(a.groups) && a.groups[last].Pos() < node.Pos() {
		last++
	}
	last--
	var doc *ast.CommentGroup
	doc, a.trailing = docAndTrailing(node)
	var closest, fromDoc []Marker
	if a.next < len(a.groups) && last >= 0 {
		closestAt := last
		if doc != nil && a.groups[closestAt].Pos() == doc.Pos() {
			closestAt--
		}
		if closestAt >= a.next {
			if w.packageLevel {
				a.pkg = append(a.pkg, a.between(false, a.next, closestAt)...)
			}
			closest = a.between(false, closestAt, closestAt+1)
		}
		fromDoc = a.between(true, closestAt+1, last+1)
	}
	child := &walker{a: a, node: node}
	switch n := node.(type) {
	case *ast.GenDecl:
		if n.Lparen != token.NoPos || n.Tok != token.TYPE {
			a.pkg = append(a.pkg, closest...)
			break
		}
		a.pending = append(append(a.pending, closest...), fromDoc...)
	case *ast.TypeSpec:
		a.byNode[node] = append(append(append(a.byNode[node], a.pending...), closest...), fromDoc...)
		a.pending = nil
	case *ast.Field:
		a.byNode[node] = append(append(a.byNode[node], closest...), fromDoc...)
	case *ast.File:
		a.pkg = append(append(a.pkg, closest...), fromDoc...)
		child.packageLevel = true
	default:
		if w.packageLevel {
			a.pkg = append(a.pkg, closest...)
		}
	}
	if a.next < len(a.groups) {
		a.next = last + 1
	}
	return child
}

func docAndTrailing(node ast.Node) (*ast.CommentGroup, *ast.CommentGroup) {
	switch n := node.(type) {
	case *ast.Field:
		return n.Doc, n.Comment
	case *ast.File:
		return n.Doc, nil
	case *ast.FuncDecl:
		return n.Doc, nil
	case *ast.GenDecl:
		return n.Doc, nil
	case *ast.ImportSpec:
		return n.Doc, n.Comment
	case *ast.TypeSpec:
		return n.Doc, n.Comment
	case *ast.ValueSpec:
		return n.Doc, n.Comment
	}
	return nil, nil
}
