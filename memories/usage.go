package memories

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"
)

// Use of memories.
//
// A Manager given Options.Usage (a second Store, like the trash: for
// example a memories.usage.json beside memories.md) records, for each
// memory a search (Search, Find) or an injection (InjectionFor,
// InjectionContent) returns, how often it was returned and the last day it
// was. Recording is cheap: the returns are counted in memory and written
// in one compare-and-swap rewrite of the sidecar once UsageBatch returns
// are pending, once a pending return is older than UsageInterval (checked
// on the next return; no goroutine), or when the host calls FlushUsage
// (at exit). So a search costs no write, and a process that stops without
// FlushUsage loses at most the last batch of counts, never the file.
// FlushUsage also drops the counts of memories that are neither in the
// file nor in the trash (a trashed memory may be restored), so the sidecar
// does not keep growing with deleted memories; the batch writes do not,
// since that means reading the memories file. The
// sidecar is JSON, {"<id>": {"count": n, "last": "YYYY-MM-DD"}}; writers in
// several processes merge their counts (the rewrite retries on
// ErrConflict). Consolidation reads it to find memories nobody uses.

// Usage is how often a memory was returned by a search or an injection,
// and the day (YYYY-MM-DD, Options.Location) it last was.
type Usage struct {
	Count int    `json:"count"`
	Last  string `json:"last"`
}

// Batching of the usage sidecar's writes.
const (
	UsageBatch    = 256
	UsageInterval = time.Minute
)

// usageState is the Manager's pending, unwritten usage.
type usageState struct {
	pending map[string]int
	day     string    // the day the pending returns happened
	since   time.Time // when the oldest pending return happened
	n       int
}

// usedScored records the memories of a search result.
func (m *Manager) usedScored(ctx context.Context, ix *index, r []scored) {
	if m.usage == nil || len(r) == 0 {
		return
	}
	ids := make([]string, len(r))
	for k, c := range r {
		ids[k] = ix.ms[c.i].ID
	}
	m.record(ctx, ids)
}

// used records the memories of an injection.
func (m *Manager) used(ctx context.Context, ix *index, order []int) {
	if m.usage == nil || len(order) == 0 {
		return
	}
	ids := make([]string, len(order))
	for k, i := range order {
		ids[k] = ix.ms[i].ID
	}
	m.record(ctx, ids)
}

func (m *Manager) record(ctx context.Context, ids []string) {
	now := m.now()
	day := now.In(m.loc).Format(time.DateOnly)
	m.usageMu.Lock()
	u := &m.usageNow
	if u.day != "" && u.day != day {
		m.flushLocked(ctx) // a new day: write yesterday's counts under yesterday's date
	}
	if u.pending == nil {
		u.pending = map[string]int{}
		u.since = now
	}
	u.day = day
	for _, id := range ids {
		u.pending[id]++
	}
	u.n += len(ids)
	if u.n >= UsageBatch || now.Sub(u.since) >= UsageInterval {
		m.flushLocked(ctx)
	}
	m.usageMu.Unlock()
}

// flushLocked writes the pending usage; a failure is logged and the counts
// kept for the next attempt (a search never fails for its bookkeeping).
func (m *Manager) flushLocked(ctx context.Context) {
	if err := m.writeUsage(ctx, false); err != nil {
		m.log.WarnContext(ctx, "memories: cannot record memory use", "error", err)
	}
}

// writeUsage adds the pending counts to the sidecar; with prune it also
// drops the counts of memories that no longer exist.
func (m *Manager) writeUsage(ctx context.Context, prune bool) error {
	u := &m.usageNow
	if len(u.pending) == 0 && !prune {
		return nil
	}
	for range m.tries {
		data, v, err := m.usage.Load(ctx)
		if err != nil {
			return &OpError{Op: "usage", Err: err, Detail: "reading the usage sidecar"}
		}
		all, err := parseUsage(data)
		if err != nil {
			return err
		}
		for id, n := range u.pending {
			e := all[id]
			e.Count += n
			if u.day > e.Last {
				e.Last = u.day
			}
			all[id] = e
		}
		dropped := 0
		if prune {
			// Read after the sidecar: a memory it counts was returned, so
			// written, before; if the file no longer holds it, it was
			// deleted since.
			live, err := m.liveIDs(ctx)
			if err != nil {
				m.log.WarnContext(ctx, "memories: cannot read the memories to drop the use of deleted ones; nothing dropped", "error", err)
			}
			for id := range all {
				if live != nil && !live[id] {
					delete(all, id)
					dropped++
				}
			}
		}
		if len(u.pending) == 0 && dropped == 0 {
			return nil
		}
		out, err := json.Marshal(all)
		if err != nil {
			return &OpError{Op: "usage", Err: err}
		}
		if _, err = m.usage.Save(ctx, out, v); err == nil {
			*u = usageState{}
			return nil
		}
		if !errors.Is(err, ErrConflict) {
			return &OpError{Op: "usage", Err: err, Detail: "saving the usage sidecar"}
		}
	}
	return &OpError{Op: "usage", Err: ErrConflict, Detail: fmt.Sprintf(
		"the usage sidecar changed under %d attempts in a row; the counts are kept for the next write", m.tries)}
}

func parseUsage(data []byte) (map[string]Usage, error) {
	all := map[string]Usage{}
	if len(data) == 0 {
		return all, nil
	}
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, &OpError{Op: "usage", Err: ErrInvalid, Detail: fmt.Sprintf(
			"the usage sidecar is not a JSON object of {count, last} by memory id: %v; delete it to start counting afresh", err)}
	}
	return all, nil
}

// FlushUsage writes the pending usage counts now, and drops the counts of
// memories neither the file nor the trash holds (when the memories cannot
// be read, it logs a warning and drops nothing). Hosts call it before they
// exit; without Options.Usage it does nothing.
func (m *Manager) FlushUsage(ctx context.Context) error {
	if m.usage == nil {
		return nil
	}
	m.usageMu.Lock()
	defer m.usageMu.Unlock()
	return m.writeUsage(ctx, true)
}

// liveIDs are the ids of the memories in the file and in the trash. It
// reads the stores rather than the index: a batch write runs under the
// index's read lock (see record), so FlushUsage, holding usageMu, must
// not wait for that lock.
func (m *Manager) liveIDs(ctx context.Context) (map[string]bool, error) {
	ids := map[string]bool{}
	for _, s := range []Store{m.store, m.trash} {
		if s == nil {
			continue
		}
		data, _, err := s.Load(ctx)
		if err != nil {
			return nil, err
		}
		for _, mem := range Parse(data).all() {
			ids[mem.ID] = true
		}
	}
	return ids, nil
}

// Usage returns the recorded use of each memory that was ever returned,
// the pending counts included; memories absent from the map were never
// returned since recording began. Without Options.Usage it is empty.
func (m *Manager) Usage(ctx context.Context) (map[string]Usage, error) {
	if m.usage == nil {
		return map[string]Usage{}, nil
	}
	data, _, err := m.usage.Load(ctx)
	if err != nil {
		return nil, &OpError{Op: "usage", Err: err, Detail: "reading the usage sidecar"}
	}
	all, err := parseUsage(data)
	if err != nil {
		return nil, err
	}
	m.usageMu.Lock()
	pending, day := maps.Clone(m.usageNow.pending), m.usageNow.day
	m.usageMu.Unlock()
	for id, n := range pending {
		e := all[id]
		e.Count += n
		if day > e.Last {
			e.Last = day
		}
		all[id] = e
	}
	return all, nil
}
