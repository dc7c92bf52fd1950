# Writes testdata/eval/bank/ (documents in the layout of a memory bank).
# Kept for reference; the bank is committed as written.
import json, os
G = "bank/global-memory-bank/"
def md(path, title, tags, body):
    p = path
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write("# " + title + "\n\ntags: " + " ".join("#" + t for t in tags) + "\n\n" + body.strip() + "\n")
def js(path, title, dtype, tags, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    rel = path.split("/", 3)[-1] if path.startswith(G) else path.split("/", 4)[-1]
    doc = {"schema": "memory_document_v2", "metadata": {"id": rel, "title": title, "documentType": dtype, "path": rel,
           "tags": tags, "lastModified": "2025-04-01T10:00:00.000Z", "createdAt": "2025-03-01T10:00:00.000Z", "version": 1},
           "content": content}
    with open(path, "w") as f:
        json.dump(doc, f, ensure_ascii=False, indent=2)
        f.write("\n")
B = lambda br, p: "bank/branch-memory-bank/" + br + "/" + p

# --- English, global ---
md(G+"auth/token-lifecycle.md", "Access and refresh tokens", ["auth", "security"], """
Access tokens are JWTs signed with RS256 and expire after 15 minutes. Refresh tokens are opaque, stored hashed in the sessions table,
and rotate on every use: a reused refresh token revokes the whole session family (reuse detection). The web client keeps the refresh
token in an httpOnly, SameSite=Strict cookie; the mobile apps keep it in the Keychain / Keystore.
When a refresh fails with 401 the client signs the user out and keeps unsent drafts locally.""")
md(G+"auth/oauth-providers.md", "Social login providers", ["auth", "oauth"], """
We support Google and Apple sign-in through OpenID Connect with PKCE. GitHub was dropped in March because almost nobody used it.
Provider accounts are linked to a local user by verified email; an unverified email never links automatically.
Client secrets live in Vault under secret/auth/providers and are rotated every 90 days.""")
md(G+"db/migrations.md", "Database migrations", ["database", "postgres"], """
Schema changes are goose migrations in db/migrations, applied at deploy time by the migrate job before the new pods start.
Rules: never edit a migration that has been applied anywhere; add a new one. Every migration must be backward compatible with the
previous release (expand, then contract in a later release). Large backfills run as background jobs, not inside a migration,
because a migration holds a lock for its whole duration.""")
md(G+"db/connection-pooling.md", "Connection pools", ["database", "performance"], """
Each API pod opens at most 20 connections to PostgreSQL through pgbouncer in transaction mode. Prepared statements are therefore
disabled in the driver. The payments client keeps its own HTTP pool of 64 connections to the payment gateway; a staging value (8) once
leaked into production and exhausted the pool (see the checkout latency incident).""")
md(G+"caching.md", "Caching", ["cache", "redis", "performance"], """
Product pages and user profiles are cached in Redis with a TTL of ten minutes. Writes invalidate the key explicitly (cache-aside);
we do not rely on the TTL for correctness. The cart is never cached. Cache keys are versioned (v3:profile:<id>) so a format change
only needs a version bump instead of a flush.""")
md(G+"deploy/release-process.md", "Release process", ["deploy", "release"], """
Releases go out from main every weekday at 10:00 UTC through Argo CD. A release is a git tag vYYYY.MM.DD.N created by the release
bot after CI is green. Rollback: re-deploy the previous tag from Argo CD; database migrations are backward compatible so the previous
release runs on the new schema. Friday releases need approval from the on-call lead.""")
md(G+"deploy/feature-flags.md", "Feature flags", ["deploy", "flags"], """
Flags live in Unleash. New features ship dark behind a flag and are enabled per percentage of users. A flag that has been at 100%
for two weeks must be removed from the code; the weekly flag report lists stale flags and their owners.""")
md(G+"incidents/2025-03-12-checkout-latency.md", "Incident: checkout latency on 12 March", ["incident", "payments"], """
From 14:05 to 14:50 UTC checkout answered slowly (p99 4.2 s) and 3% of payments timed out. Cause: the payment gateway connection pool
was set to 8 instead of 64 by a staging configuration copied into production. Fixes: configuration is validated at startup, the
latency alert fires after three minutes and pages the payments team, and the runbook has a 'pool exhausted' entry.""")
md(G+"observability/logging.md", "Logging and tracing", ["observability", "logging"], """
Services log JSON lines with slog to stdout; Vector ships them to Loki. Every request carries a trace id (OpenTelemetry) that is
included in each log line and returned to clients in the X-Trace-Id header. Never log tokens, passwords or full card numbers;
the log scrubber masks anything that looks like a PAN.""")
md(G+"observability/alerts.md", "Alerting", ["observability", "on-call"], """
Alerts are defined in Grafana as code. Pages go to the owning team's PagerDuty rotation; warnings go to Slack only. Every page must
link to a runbook section. Error budget: 99.9% availability per month for checkout, 99.5% for the admin console.""")
md(G+"coding-standards.md", "Coding standards", ["standards", "go"], """
Go code is formatted by gofmt and checked by staticcheck in CI. Errors are wrapped with %w and compared with errors.Is, never by
message. Packages are named after what they provide, not 'util'. Tests are table driven and use testify's require for
preconditions. Every exported identifier has a doc comment.""")
md(G+"tech-stack.md", "Tech stack", ["architecture", "stack"], """
Backend: Go 1.24 services, PostgreSQL 16, Redis 7, NATS JetStream for events. Frontend: React with TypeScript, built by Vite.
Mobile: Swift and Kotlin native apps. Infrastructure: Kubernetes on GKE, Argo CD, Terraform. Payments through Stripe.""")
md(G+"payments/refunds.md", "Refunds", ["payments", "stripe"], """
Refunds are issued from the admin console and go through the Stripe Refunds API. Partial refunds need a manager's approval;
refunds above 500 EUR need two approvals. A refund is final once Stripe reports succeeded; we mirror the status in the refunds
table through the charge.refunded webhook.""")
md(G+"payments/webhooks.md", "Stripe webhooks", ["payments", "stripe", "webhooks"], """
Webhook events are verified with the signing secret, stored in the webhook_events table keyed by event id (so redeliveries are
idempotent) and processed by a background worker. Events older than three days are ignored. Unknown event types are stored and
acknowledged, never rejected, so Stripe does not retry them forever.""")
md(G+"jobs/background-jobs.md", "Background jobs", ["jobs", "nats"], """
Background work runs on River (Postgres-backed job queue): emails, exports, backfills, webhook processing. Jobs must be idempotent
because they are retried with exponential backoff up to 25 times. Long jobs checkpoint their progress so a restart resumes.""")
md(G+"email/notifications.md", "Email notifications", ["email", "notifications"], """
Transactional email (order confirmation, password reset, shipping updates) is sent through Postmark from a background job.
Templates are MJML in email/templates, translated like the rest of the UI. Marketing email is a different provider and never shares
the transactional sending domain.""")
md(G+"search/product-search.md", "Product search", ["search", "elasticsearch"], """
Product search runs on OpenSearch. The catalog service publishes product.updated events; the indexer consumes them and updates the
index within seconds. Japanese and Chinese product names are analysed with the ICU tokenizer and CJK bigrams. A nightly job
re-indexes everything into a new index and swaps the alias.""")
md(G+"api/rate-limiting.md", "Rate limiting", ["api", "security"], """
The public API allows 100 requests per minute per API key and 20 per minute per IP for unauthenticated calls, enforced in Envoy with
a Redis-backed token bucket. Clients over the limit get 429 with a Retry-After header. Login attempts have their own limit:
5 failures per account per 15 minutes, then a CAPTCHA.""")
md(G+"testing/strategy.md", "Testing strategy", ["testing", "ci"], """
Unit tests run on every push; integration tests against real PostgreSQL and Redis in containers run on pull requests; end-to-end
tests with Playwright run before each release on staging. Flaky tests are quarantined within a day and fixed within a week.""")
md(G+"frontend/i18n.md", "Internationalisation", ["i18n", "frontend"], """
The UI is translated into English, Japanese and Simplified Chinese with i18next. Strings live in locales/<lang>/*.json; a missing
key falls back to English and is reported to Sentry. Prices are formatted with Intl.NumberFormat in the user's currency; dates with the
user's time zone.""")
md(G+"security/secrets.md", "Secrets management", ["security", "vault"], """
Secrets are stored in HashiCorp Vault and injected into pods by the Vault agent; they never appear in git, container images or
environment files. Database credentials are dynamic (Vault database engine) with a 24 hour lease. Access to production secrets requires
a break-glass request that is audited.""")
md(G+"backup/backups.md", "Backups", ["database", "backup"], """
PostgreSQL is backed up continuously with WAL archiving to GCS (pgBackRest) plus a full backup every night; retention 35 days.
A restore drill runs every quarter into a scratch project and must finish within four hours. Redis is not backed up: it holds only caches.""")

# --- English, branches ---
js(B("feature-refunds", "activeContext.json"), "Active context", "active_context", ["core"], {
   "currentWork": "Partial refunds from the admin console",
   "recentChanges": [{"date": "2025-04-01", "description": "Added the approval step for refunds above 500 EUR"}],
   "nextSteps": ["Handle charge.refunded webhooks for partial refunds", "Show refund history on the order page"],
   "activeDecisions": ["Refund amounts are stored in minor units (cents)"]})
js(B("feature-refunds", "branchContext.json"), "Branch context", "branch_context", ["core"], {
   "purpose": "Let support staff refund part of an order without asking engineering", "createdAt": "2025-03-28T09:00:00.000Z",
   "userStories": [{"description": "As a support agent I can refund one item of an order", "completed": False}]})
md(B("fix-cache-invalidation", "notes.md"), "Stale profile cache", ["cache", "bug"], """
Bug: after a user changes their display name, the old name is shown for up to ten minutes. The profile update handler wrote the
database but the cache invalidation used the old key format (v2:profile:<id>) instead of v3. Fix: build keys with one helper,
add a test that updates a profile and reads it back through the cache.""")
js(B("fix-cache-invalidation", "progress.json"), "Progress", "progress", ["core"], {
   "workingFeatures": ["Profile cache keys built by cacheKey()"], "pendingImplementation": ["Regression test through the cache"],
   "status": "fix in review", "knownIssues": ["Avatar URLs may still be cached by the CDN for an hour"]})

# --- Japanese, global ---
md(G+"ja/認証方式.md", "認証方式の決定", ["auth", "認証"], """
ログインは OAuth 2.0 の認可コードフローと PKCE で行う。アクセストークンの有効期限は十五分、リフレッシュトークンは三十日で失効し、
使うたびに新しいものに交換する（ローテーション）。ウェブでは httpOnly クッキーに保存し、ローカルストレージには置かない。""")
md(G+"ja/デプロイ手順.md", "デプロイ手順", ["deploy", "運用"], """
本番へのデプロイは平日の午前十時に Argo CD から行う。金曜日のデプロイはオンコール責任者の承認が必要。問題が起きたら、
一つ前のタグを再デプロイしてロールバックする。データベースのマイグレーションは後方互換にしておくこと。""")
md(G+"ja/障害対応.md", "障害対応の流れ", ["incident", "運用"], """
障害を検知したら、まず Slack の #incident チャンネルで宣言し、指揮者を一人決める。顧客への影響があればステータスページを更新する。
復旧後五営業日以内にポストモーテムを書き、再発防止策には担当者と期限をつける。個人を責めない。""")
md(G+"ja/コードレビュー.md", "コードレビューの規約", ["review", "standards"], """
プルリクエストは四百行以内を目安にし、大きな変更は分割する。レビューは一営業日以内に返す。指摘には「必須」と「提案」を明記する。
承認は二人必要で、そのうち一人はその領域のオーナーであること。""")
md(G+"ja/キャッシュ設計.md", "キャッシュ設計", ["cache", "redis"], """
商品ページとユーザー情報は Redis に十分間キャッシュする。書き込み時には必ずキーを削除し、有効期限に頼って整合性を保とうとしない。
カートはキャッシュしない。キーにはバージョンを含める。""")
md(G+"ja/多言語対応.md", "多言語対応", ["i18n", "翻訳"], """
画面の文言は英語、日本語、簡体字中国語に翻訳する。翻訳が欠けているキーは英語で表示し、Sentry に報告する。
日付はユーザーのタイムゾーンで表示し、金額は通貨ごとの書式に従う。翻訳は翻訳会社に月に一度まとめて依頼する。""")
md(G+"ja/バッチ処理.md", "夜間バッチ", ["jobs", "バッチ"], """
夜間バッチは毎日午前三時（日本時間）に実行する。売上集計、在庫の突き合わせ、検索インデックスの再構築を行う。
失敗したら翌朝の担当者に通知が届き、手動で再実行できる。処理はすべて冪等であること。""")
md(G+"ja/ログ設計.md", "ログ設計", ["logging", "observability"], """
ログは JSON 形式で標準出力に書き、すべての行にトレース ID を含める。パスワード、トークン、カード番号は絶対にログに出さない。
ログの保存期間は三十日。監査ログだけは一年間保存する。""")
md(G+"ja/テスト方針.md", "テスト方針", ["testing", "品質"], """
単体テストはプッシュのたびに実行し、結合テストはプルリクエストで実行する。E2E テストはリリース前にステージングで行う。
不安定なテストは一日以内に隔離し、一週間以内に直す。カバレッジの数字は目標にしない。""")
md(G+"ja/決済.md", "決済と返金", ["payments", "決済"], """
決済は Stripe を使う。返金は管理画面から行い、一部返金には店長の承認が必要。五万円を超える返金は二人の承認が必要。
Stripe の Webhook で返金の状態を受け取り、返金テーブルに反映する。""")
js(G+"ja/オンボーディング.json", "新メンバーのオンボーディング", "generic", ["onboarding", "チーム"], {
   "初日": ["ノートパソコンの受け取り", "Google アカウントと Slack への招待", "開発環境の構築"],
   "一週目": ["小さなバグを一つ直してリリースまで体験する", "オンコールの見学"],
   "担当": "各チームのメンターが一人つく"})

# --- Chinese, global ---
md(G+"zh/数据库迁移.md", "数据库迁移方案", ["database", "迁移"], """
我们从 MySQL 5.7 迁移到 PostgreSQL 16。第一阶段双写，读取仍然走 MySQL，每晚运行校验脚本比较两边数据。
连续七天没有差异后切换读取。观察两周后停止双写，保留只读副本三个月以备审计。存储过程大约有四十个需要重写。""")
md(G+"zh/缓存策略.md", "缓存策略", ["cache", "缓存"], """
用户资料和商品详情缓存在 Redis 中，过期时间为十分钟。写入时主动删除缓存键，不依赖过期时间保证一致性。
购物车不做缓存。缓存键带版本号，格式变更时只需升级版本号。""")
md(G+"zh/支付退款.md", "支付与退款", ["payments", "支付"], """
支付通过 Stripe 完成。退款在管理后台发起，部分退款需要经理审批，超过五百欧元的退款需要两人审批。
Stripe 通过 Webhook 通知退款结果，我们据此更新退款表中的状态。""")
md(G+"zh/监控告警.md", "监控与告警", ["observability", "告警"], """
告警规则在 Grafana 中以代码形式维护。严重告警通过 PagerDuty 呼叫值班人员，普通告警只发到 Slack。
每条告警都必须链接到处理手册。结账服务的可用性目标是每月百分之九十九点九。""")
md(G+"zh/发布流程.md", "发布流程", ["deploy", "发布"], """
每个工作日上午十点从主分支发布，通过 Argo CD 部署。周五发布需要值班负责人批准。
出现问题时重新部署上一个标签即可回滚，因此数据库迁移必须向后兼容。""")
md(G+"zh/权限模型.md", "权限模型", ["auth", "权限"], """
后台采用基于角色的访问控制。角色有管理员、客服、仓库和只读四种。客服可以查看订单和发起退款，但不能修改商品价格。
所有权限变更都会记录到审计日志，并且需要另一位管理员确认。""")
md(G+"zh/消息队列.md", "消息队列", ["nats", "events"], """
服务之间通过 NATS JetStream 传递事件，例如订单创建、商品更新。消费者必须幂等，因为消息可能重复投递。
事件保留七天。新增事件类型前需要在事件目录中登记其结构。""")
md(G+"zh/性能优化.md", "接口性能优化记录", ["performance", "性能"], """
商品列表接口的响应时间从八百毫秒降到一百二十毫秒：去掉了循环中的逐条查询，改为一次批量查询；为分类字段加了索引；
热门分类的结果缓存一分钟。下一步是给图片地址加上 CDN。""")
md(G+"zh/前端构建.md", "前端构建", ["frontend", "构建"], """
前端使用 Vite 构建，TypeScript 严格模式。依赖用 pnpm 管理，锁文件必须提交。构建产物上传到对象存储并通过 CDN 分发，
文件名带内容哈希，因此可以长期缓存。""")
md(G+"zh/数据备份.md", "数据备份与恢复", ["backup", "备份"], """
PostgreSQL 通过 WAL 归档持续备份到对象存储，每晚再做一次全量备份，保留三十五天。每季度演练一次恢复，必须在四小时内完成。
Redis 只存缓存，不做备份。""")
js(G+"zh/术语表.json", "术语表", "glossary", ["glossary", "术语"], {
   "SKU": "库存单位，每个商品规格对应一个 SKU", "履约": "从下单到送达的整个过程", "对账": "核对支付平台与订单系统的金额是否一致"})
