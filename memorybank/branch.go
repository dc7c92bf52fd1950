package memorybank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// branchMarker is the document, inside each branch directory, that records
// the branch name the directory belongs to. Paths whose segments start with
// "." are reserved for the Bank, so it never collides with a document.
const branchMarker = ".branch.json"

// ValidateBranch reports whether name is a valid git branch name, by the
// rules of git check-ref-format --branch, and whether its directory name can
// be stored. It returns nil or a *BranchError wrapping ErrInvalidBranch.
func ValidateBranch(name string) error {
	_, err := BranchDir(name)
	return err
}

// BranchDir returns the directory of a branch bank: the branch name with
// every "/" replaced by "-" ("feature/foo" → "feature-foo"), as existing
// banks are laid out. It fails like ValidateBranch.
func BranchDir(name string) (string, error) {
	if reason := branchProblem(name); reason != "" {
		return "", &BranchError{Branch: name, Reason: reason, Err: ErrInvalidBranch}
	}
	dir := strings.ReplaceAll(name, "/", "-")
	if err := ValidateKey(BranchPrefix + dir + "/" + branchMarker); err != nil {
		var ke *KeyError
		reason := err.Error()
		if errors.As(err, &ke) {
			reason = ke.Reason
		}
		return "", &BranchError{Branch: name, Reason: "its directory name " + fmt.Sprintf("%q", dir) + " cannot be stored: " + reason, Err: ErrInvalidBranch}
	}
	return dir, nil
}

// branchProblem applies git's check-ref-format rules to refs/heads/<name>.
func branchProblem(name string) string {
	switch {
	case name == "":
		return "branch name is empty"
	case name == "@":
		return `"@" is not a valid branch name`
	case name == "HEAD":
		return `"HEAD" is not a valid branch name`
	case name[0] == '-':
		return "a branch name cannot start with '-'"
	case name[0] == '/' || name[len(name)-1] == '/':
		return "a branch name cannot start or end with '/'"
	case name[len(name)-1] == '.':
		return "a branch name cannot end with '.'"
	case strings.Contains(name, "//"):
		return "a branch name cannot contain '//'"
	case strings.Contains(name, ".."):
		return "a branch name cannot contain '..'"
	case strings.Contains(name, "@{"):
		return "a branch name cannot contain '@{'"
	}
	for i, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("control character %U at byte %d", r, i)
		}
		if strings.ContainsRune(" ~^:?*[\\", r) {
			return fmt.Sprintf("character %q at byte %d is not allowed in a git branch name (not allowed: space ~ ^ : ? * [ \\)", r, i)
		}
	}
	for c := range strings.SplitSeq(name, "/") {
		if strings.HasPrefix(c, ".") {
			return fmt.Sprintf("component %q starts with '.'", c)
		}
		if strings.HasSuffix(c, ".lock") {
			return fmt.Sprintf("component %q ends with '.lock'", c)
		}
	}
	return ""
}

type branchRecord struct {
	Branch string `json:"branch"`
}

// branchDir resolves a branch to its directory and checks the directory
// belongs to it. With claim, a directory without an owner is claimed (its
// marker written); without, it is only checked. Verified owners are cached.
func (b *Bank) branchDir(ctx context.Context, name string, claim bool) (string, error) {
	dir, err := BranchDir(name)
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	owner, ok := b.branches[dir]
	b.mu.Unlock()
	if ok {
		return dir, collision(name, dir, owner)
	}
	key := BranchPrefix + dir + "/" + branchMarker
	for range 3 {
		if claim {
			// A claim follows a check that found no marker (locate), so
			// try to write it first and read it only if someone was first.
			data, _ := json.Marshal(branchRecord{Branch: name})
			put, err := b.store.Put(ctx, key, append(data, '\n'), Condition{IfAbsent: true})
			if err == nil {
				b.own.Add(1)
				// A new branch bank: refuse it if another differs only by
				// case or normalisation, taking the marker back.
				if cerr := b.branchDirCollision(ctx, name, dir); cerr != nil {
					if b.store.Delete(context.WithoutCancel(ctx), key, Condition{IfVersion: put.Version}) == nil {
						b.own.Add(1)
					}
					return "", cerr
				}
				b.mu.Lock()
				b.branches[dir] = name
				b.mu.Unlock()
				return dir, nil
			}
			if !errors.Is(err, ErrConflict) {
				return "", err
			}
		}
		obj, err := b.store.Get(ctx, key)
		if err == nil {
			var rec branchRecord
			if json.Unmarshal(obj.Data, &rec) != nil || rec.Branch == "" {
				return "", fmt.Errorf("%w: branch marker %q is not {\"branch\": name}", ErrCorrupt, key)
			}
			b.mu.Lock()
			b.branches[dir] = rec.Branch
			b.mu.Unlock()
			return dir, collision(name, dir, rec.Branch)
		}
		if !errors.Is(err, ErrNotFound) {
			return "", err
		}
		if !claim {
			return dir, nil
		}
		// Claimed and deleted again between the Put and the Get: retry.
	}
	return "", fmt.Errorf("%w: branch marker %q keeps changing", ErrConflict, key)
}

func collision(name, dir, owner string) error {
	if owner == name {
		return nil
	}
	return &BranchError{Branch: name, Dir: dir, Owner: owner, Err: ErrBranchCollision}
}

// Branches lists the branches that have a branch bank, by their recorded
// names (a directory written by another tool without a marker is listed by
// its directory name). It lists every key under BranchPrefix, so its cost
// grows with the number of branch documents; it is meant for occasional use
// (a "list branches" tool), not for every request.
func (b *Bank) Branches(ctx context.Context) ([]string, error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	var names []string
	seen := map[string]bool{}
	for obj, err := range b.store.List(ctx, BranchPrefix) {
		if err != nil {
			return nil, err
		}
		dir, _, ok := strings.Cut(strings.TrimPrefix(obj.Key, BranchPrefix), "/")
		if !ok || seen[dir] {
			continue
		}
		seen[dir] = true
		name := dir
		if o, err := b.store.Get(ctx, BranchPrefix+dir+"/"+branchMarker); err == nil {
			var rec branchRecord
			if json.Unmarshal(o.Data, &rec) == nil && rec.Branch != "" {
				name = rec.Branch
			}
		}
		names = append(names, name)
	}
	return names, nil
}
