package layers

import (
	"bufio"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Layer is one row of the table: its name, the package patterns it holds
// ("cluster" is that package, "controllers/..." that directory and below),
// and the layers it may import.
type Layer struct {
	Name     string
	Packages []string
	MayUse   []string
}

// Heading is the section of docs/architecture.md whose first table is the
// layering.
const Heading = "## Layers"

// Parse reads the layer table: the first Markdown table after Heading,
// with the columns layer, packages, may import. Packages are in
// backquotes; "may import" lists layer names, or "—" for none.
func Parse(doc string) ([]Layer, error) {
	sc := bufio.NewScanner(strings.NewReader(doc))
	inSection, inTable := false, false
	var out []Layer
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "## "):
			if inTable {
				return out, validate(out)
			}
			inSection = line == Heading
		case !inSection:
		case strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) != 3 {
				return nil, fmt.Errorf("layer table row %q: want 3 columns", line)
			}
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			if !inTable || strings.HasPrefix(cells[0], "---") {
				inTable = true // the header row, then the separator
				continue
			}
			l := Layer{Name: cells[0]}
			for _, p := range strings.Split(cells[1], ",") {
				l.Packages = append(l.Packages, strings.Trim(strings.TrimSpace(p), "`"))
			}
			if cells[2] != "—" && cells[2] != "-" {
				for _, u := range strings.Split(cells[2], ",") {
					l.MayUse = append(l.MayUse, strings.TrimSpace(u))
				}
			}
			out = append(out, l)
		case inTable:
			return out, validate(out)
		}
	}
	if !inTable {
		return nil, fmt.Errorf("no layer table under %q", Heading)
	}
	return out, validate(out)
}

// validate checks that every layer named in a "may import" exists.
func validate(layers []Layer) error {
	names := map[string]bool{}
	for _, l := range layers {
		names[l.Name] = true
	}
	for _, l := range layers {
		for _, u := range l.MayUse {
			if !names[u] {
				return fmt.Errorf("layer %q may import %q, which is not a layer", l.Name, u)
			}
		}
	}
	return nil
}

// layerOf returns the layer of a package (relative to the module): the
// one with the most specific pattern that matches.
func layerOf(layers []Layer, pkg string) (string, bool) {
	best, bestLen := "", -1
	for _, l := range layers {
		for _, p := range l.Packages {
			n := -1
			if dir, ok := strings.CutSuffix(p, "/..."); ok {
				if pkg == dir || strings.HasPrefix(pkg, dir+"/") {
					n = len(dir)
				}
			} else if pkg == p {
				n = len(p) + 1 // an exact name beats a directory of the same name
			}
			if n > bestLen {
				best, bestLen = l.Name, n
			}
		}
	}
	return best, bestLen >= 0
}

// allowed is what each layer may import: its MayUse, and theirs in turn.
func allowed(layers []Layer) map[string]map[string]bool {
	direct := map[string][]string{}
	for _, l := range layers {
		direct[l.Name] = l.MayUse
	}
	out := map[string]map[string]bool{}
	for _, l := range layers {
		seen := map[string]bool{}
		todo := slices.Clone(l.MayUse)
		for len(todo) > 0 {
			n := todo[0]
			todo = todo[1:]
			if seen[n] {
				continue
			}
			seen[n] = true
			todo = append(todo, direct[n]...)
		}
		out[l.Name] = seen
	}
	return out
}

// Check returns one error per import that its package's layer may not
// make, and per package no layer holds. imports maps each package of the
// module (relative path, "" for the root) to what it imports; imports
// outside the module (prefix module+"/") are not checked.
func Check(layers []Layer, module string, imports map[string][]string) []error {
	may := allowed(layers)
	var errs []error
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		from, ok := layerOf(layers, pkg)
		if !ok {
			errs = append(errs, fmt.Errorf("package %s is in no layer of the table", pkg))
			continue
		}
		for _, imp := range imports[pkg] {
			rel, inModule := strings.CutPrefix(imp, module+"/")
			if !inModule {
				continue
			}
			to, ok := layerOf(layers, rel)
			if !ok {
				continue // reported as a package of its own
			}
			if !may[from][to] {
				errs = append(errs, fmt.Errorf("%s (layer %q) imports %s (layer %q), which %q may not import", pkg, from, rel, to, from))
			}
		}
	}
	return errs
}

// Unused returns the patterns of the table that hold no package: a row
// left behind by a move.
func Unused(layers []Layer, pkgs []string) []string {
	var out []string
	for _, l := range layers {
		for _, p := range l.Packages {
			dir, tree := strings.CutSuffix(p, "/...")
			if !slices.ContainsFunc(pkgs, func(pkg string) bool {
				return pkg == dir || (tree && strings.HasPrefix(pkg, dir+"/"))
			}) {
				out = append(out, p)
			}
		}
	}
	return out
}
