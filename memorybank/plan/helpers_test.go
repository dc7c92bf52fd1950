package plan_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// forEachStore runs fn as a subtest over MemStore and over fsstore in a
// temporary directory.
func forEachStore(t *testing.T, fn func(t *testing.T, store memorybank.Store)) {
	t.Run("MemStore", func(t *testing.T) { fn(t, &memorybank.MemStore{}) })
	t.Run("fsstore", func(t *testing.T) {
		s, err := fsstore.Open(t.TempDir(), nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		fn(t, s)
	})
}

var ctx = context.Background()

// newBank is a Bank over store whose clock advances one second per write
// and whose ids count up, so results are stable.
func newBank(store memorybank.Store) *memorybank.Bank {
	t0 := time.Date(2025, 3, 17, 9, 0, 0, 0, time.UTC)
	var clock, ids atomic.Int64
	return memorybank.New(store, &memorybank.Options{
		Clock: func() time.Time { return t0.Add(time.Duration(clock.Add(1)-1) * time.Second) },
		NewID: func() string { return fmt.Sprintf("id-%d", ids.Add(1)) },
	})
}

func mustWrite(t *testing.T, b *memorybank.Bank, req memorybank.WriteRequest) *memorybank.WriteResult {
	t.Helper()
	res, err := b.Write(ctx, req)
	require.NoError(t, err)
	return res
}

func mustRead(t *testing.T, b *memorybank.Bank, scope memorybank.Scope, branch, path string) *memorybank.Document {
	t.Helper()
	d, err := b.Read(ctx, memorybank.ReadRequest{Scope: scope, Branch: branch, Path: path})
	require.NoError(t, err)
	return d
}

// snapshot returns every key and value of a store, to show a refused plan
// changed nothing.
func snapshot(t *testing.T, s memorybank.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for obj, err := range s.List(ctx, "") {
		require.NoError(t, err)
		full, err := s.Get(ctx, obj.Key)
		require.NoError(t, err)
		out[obj.Key] = string(full.Data)
	}
	return out
}

// memoryMD is a realistic MEMORY.md with Chinese and Japanese text, a
// trailing note after the user block and no final newline.
const memoryMD = `# 项目记忆 / プロジェクトメモリ

> 本文件由 AI 与用户共同维护。ユーザーブロックは AI が変更しません。

<!-- MACHINE_BLOCK_START -->
## Current Focus
支付超时问题的排查（决済タイムアウト）

## Recent Changes
- 2024-01-20: 增加重试逻辑
- 2024-01-21: リトライ回数を 3 回に変更

## Routing
| 主题 | 文件 |
|------|------|
| 支付 | details/requirements/REQ-003-payment.md |
<!-- MACHINE_BLOCK_END -->

<!-- USER_BLOCK_START -->
## 我的笔记
- 不要在周五发布！
- 金曜日のリリースは禁止
<!-- USER_BLOCK_END -->

最后更新：手动维护 — 最終更新は手動`
