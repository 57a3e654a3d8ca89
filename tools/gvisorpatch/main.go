// Command gvisorpatch rebuilds third_party/gvisor, the trimmed and patched
// copy of gVisor the build uses (go.mod replaces the module with it), from
// the pristine module at go.mod's version plus third_party/patches/gvisor/*.patch,
// applied in name order. With -check it builds the copy in a temporary
// directory instead and fails on any difference from the tree's, so the copy
// holds the patches' changes and nothing else. docs/decisions.md says why.
//
//	go run ./tools/gvisorpatch          # rewrite third_party/gvisor
//	go run ./tools/gvisorpatch -check   # CI: fail if it differs
//
// Run from the module root. Needs the go command and patch(1).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

const (
	module     = "gvisor.dev/gvisor"
	copyDir    = "third_party/gvisor"
	patchesDir = "third_party/patches/gvisor"
)

// The copy is built for every platform it may be built on: the packages
// the module's build and tests compile differ by architecture (pkg/cpuid
// only on arm64).
var platforms = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}}

// rootFiles are the module's own files the copy keeps besides packages:
// what the go command reads (go.mod) and what the licence asks for.
var rootFiles = []string{"go.mod", "LICENSE", "AUTHORS"}

func main() {
	check := flag.Bool("check", false, "build in a temporary directory and fail on any difference from "+copyDir)
	flag.Parse()
	if err := run(*check); err != nil {
		fmt.Fprintln(os.Stderr, "gvisorpatch:", err)
		os.Exit(1)
	}
}

func run(check bool) error {
	if err := checkReplace(); err != nil {
		return err
	}
	src, err := pristine()
	if err != nil {
		return err
	}
	pkgs, err := packages()
	if err != nil {
		return err
	}
	if !check {
		if err := os.RemoveAll(copyDir); err != nil {
			return fmt.Errorf("removing the old copy: %w", err)
		}
		return build(src, pkgs, copyDir)
	}
	tmp, err := os.MkdirTemp("", "gvisorpatch")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	want := filepath.Join(tmp, "gvisor")
	if err := build(src, pkgs, want); err != nil {
		return err
	}
	diffs, err := compare(want, copyDir)
	if err != nil {
		return err
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s is not the pristine module plus %s (run go run ./tools/gvisorpatch):\n  %s",
			copyDir, patchesDir, strings.Join(diffs, "\n  "))
	}
	fmt.Printf("%s: %d packages, pristine plus %s\n", copyDir, len(pkgs), patchesDir)
	return nil
}

// checkReplace makes sure the build uses the copy: a copy that go.mod does
// not replace the module with would be checked and never compiled.
func checkReplace() error {
	out, err := goCmd(nil, "list", "-m", "-f", "{{with .Replace}}{{.Path}}{{end}}", module)
	if err != nil {
		return err
	}
	if got := strings.TrimSpace(out); filepath.Clean(got) != copyDir {
		return fmt.Errorf("go.mod replaces %s with %q, want ./%s", module, got, copyDir)
	}
	return nil
}

// pristine returns the module cache's directory of go.mod's version,
// downloading it (and checking it against go.sum) if needed.
func pristine() (string, error) {
	ver, err := goCmd(nil, "list", "-m", "-f", "{{.Version}}", module)
	if err != nil {
		return "", err
	}
	out, err := goCmd(nil, "mod", "download", "-json", module+"@"+strings.TrimSpace(ver))
	if err != nil {
		return "", err
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return "", fmt.Errorf("go mod download's output: %w", err)
	}
	if m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory: %s", module, m.Error)
	}
	return m.Dir, nil
}

// packages lists the module's packages the build and tests compile on any
// of the platforms, resolved against the pristine module (a go.mod without
// the replace), so a package the patches would need is never missed.
func packages() ([]string, error) {
	tmp, err := os.MkdirTemp("", "gvisorpatch-mod")
	if err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	modfile := filepath.Join(tmp, "go.mod")
	for _, f := range [][2]string{{"go.mod", modfile}, {"go.sum", filepath.Join(tmp, "go.sum")}} {
		b, err := os.ReadFile(f[0])
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f[0], err)
		}
		if err := os.WriteFile(f[1], b, 0o644); err != nil {
			return nil, fmt.Errorf("writing %s: %w", f[1], err)
		}
	}
	if _, err := goCmd(nil, "mod", "edit", "-modfile="+modfile, "-dropreplace="+module); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, p := range platforms {
		env := []string{"GOOS=" + p[0], "GOARCH=" + p[1], "CGO_ENABLED=0", "GOFLAGS=-mod=mod"}
		out, err := goCmd(env, "list", "-modfile="+modfile, "-deps", "-test", "-f", "{{.ImportPath}}", "./...")
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(out, "\n") {
			path, _, _ := strings.Cut(line, " ") // "p [q.test]" is p compiled for q's test
			if strings.HasPrefix(path, module+"/") {
				set[strings.TrimPrefix(path, module+"/")] = true
			}
		}
	}
	if len(set) == 0 {
		return nil, errors.New("the build compiles no package of " + module)
	}
	pkgs := make([]string, 0, len(set))
	for p := range set {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	return pkgs, nil
}

func goCmd(env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}
