package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

// ErrUnclearAnswer: a confirmation answer is neither yes nor no. Ask again.
var ErrUnclearAnswer = errors.New("plan: answer is neither yes nor no")

// planConfirmText holds the words of a confirmation in one language.
type planConfirmText struct {
	title, create, update, del, question string
	open, close                          string // around the description
	updateSection                        string // fallback description of a section update, %s = section
}

var planConfirmTexts = map[memorybank.Language]planConfirmText{
	memorybank.Chinese: {title: "[Memory Bank 更新计划]", create: "创建", update: "更新", del: "删除",
		question: "是否执行？[Y/n]", open: "（", close: "）", updateSection: "更新 %s"},
	memorybank.Japanese: {title: "[Memory Bank 更新計画]", create: "作成", update: "更新", del: "削除",
		question: "実行しますか？[Y/n]", open: "（", close: "）", updateSection: "%s を更新"},
	memorybank.English: {title: "[Memory Bank update plan]", create: "Create", update: "Update", del: "Delete",
		question: "Apply these changes? [Y/n]", open: " (", close: ")", updateSection: "update %s"},
}

// Confirmation renders the plan for the user to confirm, in the shape the
// memory_ops format prescribes (lang "" is Chinese, the format's own
// language):
//
//	[Memory Bank 更新计划]
//	- 创建: details/requirements/REQ-004-refund.md（<reason>）
//	- 更新: MEMORY.md（<changes>）
//	- 删除: details/old.md
//
//	是否执行？[Y/n]
//
// English and Japanese use the same shape. A create shows its reason, an
// update its changes (or "更新 <section>" when it has none), a delete only
// its path; a missing description drops the parentheses. Descriptions are
// put on one line. The text has no final line ending. An unknown language
// is memorybank.ErrInvalidRequest.
func (p *WritePlan) Confirmation(lang memorybank.Language) (string, error) {
	if lang == "" {
		lang = memorybank.Chinese
	}
	t, ok := planConfirmTexts[lang]
	if !ok {
		return "", invalidRequest("confirmation language %q is not one of %q", lang, memorybank.Languages())
	}
	var b strings.Builder
	b.WriteString(t.title + "\n")
	for _, op := range p.Operations {
		verb, desc := t.update, ""
		switch op.Type {
		case OpCreate:
			verb, desc = t.create, op.Reason
			if desc == "" {
				desc = op.Changes
			}
		case OpUpdate:
			desc = op.Changes
			if strings.TrimSpace(desc) == "" && op.Section != "" {
				desc = fmt.Sprintf(t.updateSection, op.Section)
			}
		case OpDelete:
			verb = t.del
		default:
			verb = string(op.Type)
		}
		b.WriteString("- " + verb + ": " + op.Path)
		if desc = strings.Join(strings.Fields(desc), " "); desc != "" {
			b.WriteString(t.open + desc + t.close)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + t.question)
	return b.String(), nil
}

var (
	planYes = []string{"y", "yes", "是", "是的", "好", "好的", "ok", "okay", "はい"}
	planNo  = []string{"n", "no", "否", "不", "不用", "skip", "いいえ"}
)

// ParseAnswer reads the user's answer to a confirmation: Y, y, yes, 是,
// 好, ok, はい (and 是的, 好的, okay) confirm; n, no, 否, 不用, skip, いいえ
// (and 不) decline; an empty answer takes the default, yes. Case,
// surrounding spaces (also the ideographic space), full-width letters and
// trailing punctuation ("。", "！", "!", ".") are ignored. Anything else
// is an error wrapping ErrUnclearAnswer whose message asks again.
func ParseAnswer(answer string) (confirmed bool, err error) {
	a := strings.TrimSpace(planFold(answer))
	if a == "" {
		return true, nil
	}
	a = strings.TrimSpace(strings.TrimRight(a, ".!。、"))
	for _, y := range planYes {
		if a == y {
			return true, nil
		}
	}
	for _, n := range planNo {
		if a == n {
			return false, nil
		}
	}
	return false, fmt.Errorf("%w: %q; answer Y (yes, 是, はい) to apply the plan or n (no, 否, いいえ) to skip it",
		ErrUnclearAnswer, answer)
}
