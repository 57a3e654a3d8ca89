package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// build writes the trimmed copy to dst: the root files, each package's
// compiled sources (no tests, no subdirectories: those are other packages
// or test data), then the patches.
func build(src string, pkgs []string, dst string) error {
	for _, f := range rootFiles {
		if err := copyFile(filepath.Join(src, f), filepath.Join(dst, f)); err != nil {
			return err
		}
	}
	for _, p := range pkgs {
		ents, err := os.ReadDir(filepath.Join(src, p))
		if err != nil {
			return fmt.Errorf("package %s: %w", p, err)
		}
		for _, e := range ents {
			if e.Type().IsRegular() && source(e.Name()) {
				if err := copyFile(filepath.Join(src, p, e.Name()), filepath.Join(dst, p, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	return applyPatches(dst)
}

// source reports whether a package's file is compiled into the build.
func source(name string) bool {
	if strings.HasSuffix(name, "_test.go") {
		return false
	}
	switch filepath.Ext(name) {
	case ".go", ".s", ".h":
		return true
	}
	return false
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("reading the pristine module: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(to), err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		return fmt.Errorf("writing the copy: %w", err)
	}
	return nil
}

// applyPatches applies every patch file in name order, exactly: no fuzz,
// no offsets tolerated silently, no backup files left in the copy.
func applyPatches(dst string) error {
	names, err := filepath.Glob(filepath.Join(patchesDir, "*.patch"))
	if err != nil {
		return fmt.Errorf("listing patches: %w", err)
	}
	sort.Strings(names)
	for _, n := range names {
		abs, err := filepath.Abs(n)
		if err != nil {
			return fmt.Errorf("patch %s: %w", n, err)
		}
		cmd := exec.Command("patch", "-p1", "-s", "-f", "-N", "--fuzz=0", "--no-backup-if-mismatch", "-r", "-", "-d", dst, "-i", abs)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("applying %s: %w: %s", n, err, out.String())
		}
	}
	return nil
}

// compare lists every file that is in one tree and not the other or
// differs between them.
func compare(want, got string) ([]string, error) {
	w, err := files(want)
	if err != nil {
		return nil, err
	}
	g, err := files(got)
	if err != nil {
		return nil, err
	}
	var diffs []string
	for name, b := range w {
		switch gb, ok := g[name]; {
		case !ok:
			diffs = append(diffs, "missing: "+name)
		case !bytes.Equal(b, gb):
			diffs = append(diffs, "differs: "+name)
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			diffs = append(diffs, "not in the module or the patches: "+name)
		}
	}
	sort.Strings(diffs)
	return diffs, nil
}

// files reads a tree into memory by slash path (the copy is ~3 MB).
func files(root string) (map[string][]byte, error) {
	m := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		m[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	return m, nil
}
