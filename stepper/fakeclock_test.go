package stepper

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Step mode is a setting (runmode.Mode), not a kind of clock: no component
// may guess it by checking for a *clock.Fake. The fake clock belongs to the
// clock package, to the stepper that moves it, and to tests (their files,
// and test-helper packages such as apiserver/apiservertest).
func TestOnlyTheStepperAndTestsUseTheFakeClock(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	var offenders []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch {
			case strings.HasPrefix(d.Name(), ".") && rel != ".", d.Name() == "testdata",
				rel == "clock", rel == "stepper", strings.HasSuffix(d.Name(), "test"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		clockName := ""
		for _, imp := range f.Imports {
			if imp.Path.Value == `"github.com/kubesim/kubesim/clock"` {
				clockName = "clock"
				if imp.Name != nil {
					clockName = imp.Name.Name
				}
			}
		}
		if clockName == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == clockName && (sel.Sel.Name == "Fake" || sel.Sel.Name == "NewFake") {
				offenders = append(offenders, fset.Position(sel.Pos()).String())
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(offenders) > 0 {
		t.Errorf("the fake clock is used outside clock, stepper and tests (tell the component its runmode.Mode instead):\n%s",
			strings.Join(offenders, "\n"))
	}
}
