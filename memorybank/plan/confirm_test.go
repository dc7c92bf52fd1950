package plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/plan"
)

// specPlan has the descriptions of the specification's confirmation example: the
// MEMORY.md update has a section and no changes of its own.
var specPlan = &plan.WritePlan{Operations: []plan.Operation{
	{Type: plan.OpCreate, Path: "details/requirements/REQ-004-refund.md", Reason: "退款功能需求"},
	{Type: plan.OpUpdate, Path: "MEMORY.md", Block: plan.MachineBlock, Section: "Current Focus"},
	{Type: plan.OpUpdate, Path: "details/requirements/index.md", Changes: "添加路由条目"},
}, RequiresConfirmation: true}

func TestConfirmationSpecText(t *testing.T) {
	// Exactly the text of the specification.
	const spec = "[Memory Bank 更新计划]\n" +
		"- 创建: details/requirements/REQ-004-refund.md（退款功能需求）\n" +
		"- 更新: MEMORY.md（更新 Current Focus）\n" +
		"- 更新: details/requirements/index.md（添加路由条目）\n" +
		"\n" +
		"是否执行？[Y/n]"
	for _, lang := range []memorybank.Language{"", memorybank.Chinese} {
		got, err := specPlan.Confirmation(lang)
		require.NoError(t, err)
		assert.Equal(t, spec, got)
	}
}

func TestConfirmationLanguages(t *testing.T) {
	wp, err := plan.DecodeWritePlan([]byte(specMemoryOps))
	require.NoError(t, err)
	wp.Operations = append(wp.Operations, plan.Operation{Type: plan.OpDelete, Path: "details/old.md"})
	wp.Operations[2].Changes = "添加 REQ-004\n  路由条目" // descriptions are put on one line

	for _, tc := range []struct {
		lang memorybank.Language
		want string
	}{
		{memorybank.Chinese, "[Memory Bank 更新计划]\n" +
			"- 创建: details/requirements/REQ-004-refund.md（用户确认新增退款功能需求）\n" +
			"- 更新: MEMORY.md（更新当前焦点为退款功能）\n" +
			"- 更新: details/requirements/index.md（添加 REQ-004 路由条目）\n" +
			"- 删除: details/old.md\n" +
			"\n" +
			"是否执行？[Y/n]"},
		{memorybank.Japanese, "[Memory Bank 更新計画]\n" +
			"- 作成: details/requirements/REQ-004-refund.md（用户确认新增退款功能需求）\n" +
			"- 更新: MEMORY.md（更新当前焦点为退款功能）\n" +
			"- 更新: details/requirements/index.md（添加 REQ-004 路由条目）\n" +
			"- 削除: details/old.md\n" +
			"\n" +
			"実行しますか？[Y/n]"},
		{memorybank.English, "[Memory Bank update plan]\n" +
			"- Create: details/requirements/REQ-004-refund.md (用户确认新增退款功能需求)\n" +
			"- Update: MEMORY.md (更新当前焦点为退款功能)\n" +
			"- Update: details/requirements/index.md (添加 REQ-004 路由条目)\n" +
			"- Delete: details/old.md\n" +
			"\n" +
			"Apply these changes? [Y/n]"},
	} {
		t.Run(string(tc.lang), func(t *testing.T) {
			got, err := wp.Confirmation(tc.lang)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}

	ja, err := specPlan.Confirmation(memorybank.Japanese)
	require.NoError(t, err)
	assert.Contains(t, ja, "- 更新: MEMORY.md（Current Focus を更新）\n")
	en, err := specPlan.Confirmation(memorybank.English)
	require.NoError(t, err)
	assert.Contains(t, en, "- Update: MEMORY.md (update Current Focus)\n")

	_, err = wp.Confirmation("fr")
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
}

func TestParseAnswer(t *testing.T) {
	yes := []string{"Y", "y", "yes", "YES", "Yes", "是", "好", "ok", "OK", "はい", "", "   ", "\u3000", " y\n", "ｙｅｓ", "Ｙ", "好的", "是的", "ok!", "はい。", "是！", "okay"}
	no := []string{"n", "N", "no", "No", "否", "不用", "skip", "SKIP", "いいえ", "ｎｏ", " n\t", "いいえ。", "不"}
	for _, a := range yes {
		ok, err := plan.ParseAnswer(a)
		require.NoError(t, err, "%q", a)
		assert.True(t, ok, "%q", a)
	}
	for _, a := range no {
		ok, err := plan.ParseAnswer(a)
		require.NoError(t, err, "%q", a)
		assert.False(t, ok, "%q", a)
	}
	for _, a := range []string{"maybe", "yn", "y y", "nope", "是否", "Y/n", "1", "。"} {
		ok, err := plan.ParseAnswer(a)
		assert.ErrorIs(t, err, plan.ErrUnclearAnswer, "%q", a)
		assert.False(t, ok, "%q", a)
		if err != nil {
			assert.Contains(t, err.Error(), "answer Y")
		}
	}
}
