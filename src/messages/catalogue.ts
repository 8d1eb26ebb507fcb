// Every `msg` the service writes, in English and in Chinese (simplified), and nowhere else. An entry
// without both languages, or whose languages do not name the same placeholders, does not compile.
// `{name}` is a parameter: a value of the request, a field name, a code value or a nested message,
// never translated. The English text is the service's historical wording, which callers compare:
// change it only with the document. docs/languages.md says how a language is chosen.

export const catalogue = {
  // Lists of messages (several schema violations at once).
  listSeparator: { en: '; ', zh: '；' },
  problems: { en: '{list}', zh: '{list}' },
  // Every 1002 in Chinese says first what kind of refusal it is.
  badParameter: { en: '{detail}', zh: '参数错误：{detail}' },

  // Refusals before an operation runs: HTTP, JSON, paths, sizes, the generic failures.
  malformedHttp: { en: 'malformed HTTP request', zh: 'HTTP 请求格式错误' },
  requestTimeout: { en: 'request not received in time', zh: '未能在规定时间内收到完整请求' },
  headersTooLarge: { en: 'request headers too large', zh: '请求头过大' },
  bodyNotObject: { en: 'request body must be a JSON object', zh: '请求体必须是 JSON 对象' },
  bodyNotJson: { en: 'request body is not valid JSON', zh: '请求体不是有效的 JSON' },
  contentTypeJson: { en: 'content type must be application/json', zh: 'Content-Type 必须为 application/json' },
  contentEncoding: {
    en: 'Content-Encoding is not accepted: send the body as plain JSON',
    zh: '不接受 Content-Encoding：请求体须为未压缩的 JSON',
  },
  bodyTooLarge: { en: 'request body too large', zh: '请求体过大' },
  noSuchPath: { en: 'no such path', zh: '接口路径不存在' },
  noSuchPathOf: { en: 'no such path: {method} {path}', zh: '接口路径不存在：{method} {path}' },
  badPercentEncoding: {
    en: 'no such path: the URL is not validly percent-encoded',
    zh: '接口路径不存在：URL 的百分号编码无效',
  },
  systemBusy: { en: 'system busy, please retry later', zh: '系统繁忙，请稍后重试' },
  rateLimited: { en: 'rate limit exceeded: retry in {seconds} s', zh: '请求过于频繁，请 {seconds} 秒后重试' },
  tooManyLogins: { en: 'too many logins: retry in {seconds} s', zh: '登录过于频繁，请 {seconds} 秒后重试' },
  idempotencyMismatch: {
    en: 'Idempotency-Key reused with a different body',
    zh: '该 Idempotency-Key 已用于另一个不同的请求体',
  },

  // The database and the readiness probe.
  databaseUnavailable: { en: 'database unavailable, please retry later', zh: '数据库暂时不可用，请稍后重试' },
  databaseBusy: { en: 'database busy, please retry later', zh: '数据库繁忙，请稍后重试' },
  databaseDown: { en: 'database unavailable', zh: '数据库不可用' },
  databaseNotMigrated: {
    en: 'database not migrated: version {actual} of {expected}',
    zh: '数据库未完成迁移：当前版本 {actual}，应为 {expected}',
  },
  pushQueueNotReady: { en: 'the push queue (pg-boss) is not ready', zh: '推送队列（pg-boss）尚未就绪' },
  columnAt: { en: '{column}: ', zh: '{column}：' },
  columnNotNull: { en: '{at}must not be null', zh: '{at}不能为空' },
  columnRuleBroken: { en: '{at}a value breaks a rule of the record', zh: '{at}取值违反了记录的约束' },
  columnTooLong: { en: '{at}a value is too long', zh: '{at}取值过长' },
  columnNumberRange: { en: '{at}a number is out of range', zh: '{at}数值超出范围' },
  columnDateRange: { en: '{at}a date or time is out of range', zh: '{at}日期或时间超出范围' },
  columnText: {
    en: '{at}a text cannot be stored (NUL character or invalid Unicode)',
    zh: '{at}文本无法保存（含 NUL 字符或无效的 Unicode）',
  },
  columnNotStorable: { en: '{at}a value cannot be stored', zh: '{at}取值无法保存' },
  valueOutOfRange: { en: 'a value is out of range', zh: '取值超出范围' },
  columnTooLarge: { en: '{at}a value is too large', zh: '{at}取值过大' },

  // Schema violations (the document's JSON Schema, checked by Ajv) and values PostgreSQL cannot hold.
  required: { en: '{field}: required', zh: '{field} 必填' },
  unknownField: { en: '{field}: unknown field', zh: '未知字段 {field}' },
  enumOneOf: { en: '{at}: must be one of {values}', zh: '{at} 必须是以下之一：{values}' },
  constMustBe: { en: '{at}: must be {value}', zh: '{at} 必须为 {value}' },
  formatInstant: {
    en: '{at}: must be a valid ISO 8601 instant with offset (2026-11-21T13:02:35+08:00)',
    zh: '{at} 必须是带时区偏移的有效 ISO 8601 时间（如 2026-11-21T13:02:35+08:00）',
  },
  formatDate: { en: '{at}: must be a valid date (YYYY-MM-DD)', zh: '{at} 必须是有效的日期（YYYY-MM-DD）' },
  formatOther: { en: '{at}: must be a valid {format}', zh: '{at} 必须是有效的 {format}' },
  pattern: { en: '{at}: must match the pattern {pattern}', zh: '{at} 必须符合格式 {pattern}' },
  type: { en: '{at}: must be {type}', zh: '{at} 的类型必须为 {type}' },
  typeEither: { en: '{at}: must be {types} or {last}', zh: '{at} 的类型必须为 {types} 或 {last}' },
  maxLength: { en: '{at}: must NOT have more than {limit} characters', zh: '{at} 长度不能超过 {limit} 个字符' },
  minLength: { en: '{at}: must NOT have fewer than {limit} characters', zh: '{at} 长度不能少于 {limit} 个字符' },
  maxItems: { en: '{at}: must NOT have more than {limit} items', zh: '{at} 不能多于 {limit} 项' },
  minItems: { en: '{at}: must NOT have fewer than {limit} items', zh: '{at} 不能少于 {limit} 项' },
  maxProperties: { en: '{at}: must NOT have more than {limit} properties', zh: '{at} 不能多于 {limit} 个字段' },
  minProperties: { en: '{at}: must NOT have fewer than {limit} properties', zh: '{at} 不能少于 {limit} 个字段' },
  maximum: { en: '{at}: must be <= {limit}', zh: '{at} 不能大于 {limit}' },
  minimum: { en: '{at}: must be >= {limit}', zh: '{at} 不能小于 {limit}' },
  exclusiveMaximum: { en: '{at}: must be < {limit}', zh: '{at} 必须小于 {limit}' },
  exclusiveMinimum: { en: '{at}: must be > {limit}', zh: '{at} 必须大于 {limit}' },
  multipleOf: { en: '{at}: must be multiple of {limit}', zh: '{at} 必须是 {limit} 的倍数' },
  uniqueItems: {
    en: '{at}: must NOT have duplicate items (items ## {j} and {i} are identical)',
    zh: '{at} 不能有重复项（第 {j} 项与第 {i} 项相同）',
  },
  notAllowed: { en: '{at}: must NOT be valid', zh: '{at} 的取值不被允许' },
  oneOfSchemas: { en: '{at}: must match exactly one schema in oneOf', zh: '{at} 的取值不符合要求' },
  anyOfSchemas: { en: '{at}: must match a schema in anyOf', zh: '{at} 的取值不符合要求' },
  // A rule of Ajv the document does not use: its own English inside the Chinese.
  otherRule: { en: '{at}: {rule}', zh: '{at} 的取值不符合要求（{rule}）' },
  unstorable: { en: '{at}: {problem}', zh: '{at} {problem}' },
  invalidRequest: { en: 'invalid request', zh: '请求无效' },
  textNul: { en: 'must not contain the NUL character (U+0000)', zh: '不能包含 NUL 字符（U+0000）' },
  textSurrogate: {
    en: 'must not contain a lone UTF-16 surrogate (not Unicode text)',
    zh: '不能包含孤立的 UTF-16 代理项（不是有效的 Unicode 文本）',
  },
  integerUnsafe: { en: 'must be an integer between {min} and {max}', zh: '必须是 {min} 至 {max} 之间的整数' },
  keyProblem: { en: 'a key {problem}', zh: '键名{problem}' },
  numberNotFinite: { en: 'must be a finite number', zh: '必须是有限的数值' },
  offsetRange: { en: 'offset must be within -15:59..+15:59', zh: '时区偏移必须在 -15:59 至 +15:59 之间' },
  between: { en: 'must be between {earliest} and {latest}', zh: '必须在 {earliest} 至 {latest} 之间' },

  // Authentication, accounts and roles.
  notLoggedIn: { en: 'not logged in', zh: '未登录' },
  tokenInvalid: { en: 'token expired or invalid', zh: '令牌已过期或无效' },
  tokenWrongKind: { en: 'token of the wrong kind for this operation', zh: '令牌类型不适用于此操作' },
  loginFailed: { en: 'wrong user name or password', zh: '用户名或密码错误' },
  userNameExists: { en: 'userName already exists: {userName}', zh: 'userName 已存在：{userName}' },
  userNotFound: { en: 'user not found: {userName}', zh: '用户不存在：{userName}' },
  lastAdmin: {
    en: 'userName: {userName} is the last enabled admin and must stay one',
    zh: 'userName：{userName} 是最后一个启用的管理员，不能停用、删除或更改其角色',
  },
  companyCodeForEnterprise: { en: 'companyCode: required for role enterprise', zh: 'companyCode 必填（角色为 enterprise 时）' },
  companyCodeNotForRole: {
    en: 'companyCode: only an enterprise account has one, not role {role}',
    zh: 'companyCode：仅 enterprise 角色的账号可以设置，当前角色为 {role}',
  },
  enterpriseRoleOnPark: {
    en: 'role: enterprise accounts exist on the park edition only',
    zh: 'role：只有园区版才有 enterprise 账号',
  },
  collectorRoleOnEnterprise: {
    en: 'role: collector accounts exist on the enterprise edition only',
    zh: 'role：只有企业版才有 collector 账号',
  },
  roleMayNotCall: { en: 'permission denied: role {role} may not call {operationId}', zh: '权限不足：角色 {role} 无权调用 {operationId}' },
  servedByEdition: {
    en: 'permission denied: {operationId} is served by the {edition} edition',
    zh: '权限不足：{operationId} 仅由 {edition} 版本提供',
  },
  readsOwnCompany: {
    en: 'permission denied: this account reads companyCode {companyCode} only',
    zh: '权限不足：此账号只能读取 companyCode 为 {companyCode} 的数据',
  },

  // The park: pushes, reconciliation, enterprises.
  parkNotAuthor: {
    en: 'permission denied: the park edition is not an author; it holds what its enterprises push (/system/push/records, /system/push/attachment)',
    zh: '权限不足：园区版不直接录入数据，只保存各企业推送的数据（/system/push/records、/system/push/attachment）',
  },
  pushesOwnCompany: {
    en: 'permission denied: this account pushes companyCode {companyCode} only',
    zh: '权限不足：此账号只能推送 companyCode 为 {companyCode} 的数据',
  },
  pushOnlyField: {
    en: '{field}: only a push (/system/push/attachment, park edition) carries it',
    zh: '{field}：只有推送（/system/push/attachment，园区版）可以携带此字段',
  },
  requiredInPush: { en: '{field}: required in a push', zh: '{field} 在推送中必填' },
  noParkConfigured: {
    en: 'no park configured (PARK_URL): nothing to reconcile with',
    zh: '未配置园区（PARK_URL），没有可对账的对象',
  },
  companyCodeWhich: { en: 'companyCode: required (which enterprise)', zh: 'companyCode 必填（指明是哪家企业）' },
  companyCodeOnPark: {
    en: 'companyCode: required on the park edition (which enterprise)',
    zh: 'companyCode 在园区版必填（指明是哪家企业）',
  },

  // Live monitoring: readings, alarms, shelving.
  readingsBatchSize: {
    en: 'list must hold 1 to {limit} readings, got {count}',
    zh: 'list 须包含 1 至 {limit} 条读数，实际为 {count} 条',
  },
  minutesBatchSize: {
    en: 'list must hold 1 to {limit} minutes, got {count}',
    zh: 'list 须包含 1 至 {limit} 个分钟汇总，实际为 {count} 个',
  },
  notAListCursor: { en: 'after: not a cursor of this list', zh: 'after：不是本列表的游标' },
  alarmDangerMissing: {
    en: 'troubleshootInfoId: no live troubleshootInfo {id}',
    zh: 'troubleshootInfoId：不存在有效的隐患记录 {id}',
  },
  shelveUntil: {
    en: 'until: must be in the future and at most 7 days ahead',
    zh: 'until：须晚于当前时间，且不超过 7 天',
  },
  handlingTransition: { en: 'handling: {from} cannot become {to}', zh: 'handling：不能从 {from} 变为 {to}' },

  // Webhooks and the events they deliver.
  urlNotUrl: { en: 'url: not a URL: {url}', zh: 'url：不是有效的 URL：{url}' },
  urlScheme: { en: 'url: must be http or https', zh: 'url：必须为 http 或 https' },
  urlCredentials: { en: 'url: must not carry credentials', zh: 'url：不能包含用户名或密码' },
  urlPort: { en: 'url: port 0 cannot be connected to', zh: 'url：端口 0 无法连接' },
  urlUnresolved: { en: 'url: the name {host} does not resolve', zh: 'url：无法解析主机名 {host}' },
  urlPrivate: {
    en: 'url: {host} is on a loopback, private or link-local network ({address})',
    zh: 'url：{host} 位于回环、私有或链路本地网络（{address}）',
  },
  webhookDisabled: { en: 'webhook {id} is disabled: enable it first', zh: 'webhook {id} 已停用，请先启用' },
  webhookNotFound: { en: 'webhook not found: {id}', zh: 'webhook 不存在：{id}' },
  eventNotFound: { en: 'event not found: {id}', zh: '事件不存在：{id}' },

  // Supervision: calendars, windows, indicators, computed fields.
  notADate: { en: '{field}: {date} is not a date (YYYY-MM-DD)', zh: '{field}：{date} 不是有效日期（YYYY-MM-DD）' },
  outsideYear: { en: '{field}: {date} is outside year {year}', zh: '{field}：{date} 不在 {year} 年内' },
  inBothLists: { en: 'holidays, workdays: {date} is in both lists', zh: 'holidays、workdays：{date} 同时出现在两个列表中' },
  toBeforeFrom: { en: 'to: must not be before from', zh: 'to：不能早于 from' },
  unknownFigure: { en: '{at}.field: unknown figure {field}', zh: '{at}.field：未知指标 {field}' },
  computedOrdersNothing: {
    en: 'orderBy.field: {field} is computed as of the read; it orders nothing',
    zh: 'orderBy.field：{field} 为读取时计算的字段，不能用于排序',
  },
  computedEqOnly: {
    en: '{at}.op: {field} is computed as of the read; it takes eq only',
    zh: '{at}.op：{field} 为读取时计算的字段，只支持 eq',
  },
  factsHaveNoAttachments: { en: 'attachments: {resource} has none', zh: 'attachments：{resource} 没有附件' },
  prefixesSameLength: { en: 'prefixes: must all have the same length', zh: 'prefixes：所有前缀的长度必须相同' },
  prefixesTooMany: {
    en: 'prefixes: more than {limit} records; ask for longer prefixes',
    zh: 'prefixes：匹配的记录超过 {limit} 条，请使用更长的前缀',
  },
  severalEnterprises: {
    en: 'companyCode: several enterprises hold {what}; name the companyCode',
    zh: 'companyCode：多家企业都有 {what}，请指定 companyCode',
  },
  attachmentOf: { en: '{resource} attachment {id}', zh: '{resource} 的附件 {id}' },

  // Records: existence, uniqueness, references, batches, states.
  recordNotFound: { en: 'record not found: {id}', zh: '记录不存在：{id}' },
  attachmentNotFound: { en: 'attachment not found: {id}', zh: '附件不存在：{id}' },
  alreadyExistsValue: { en: '{field} already exists: {value}', zh: '{field} 已存在：{value}' },
  alreadyExists: { en: '{field} already exists', zh: '{field} 已存在' },
  referenceMissing: {
    en: '{field}: referenced {parent} {value} does not exist',
    zh: '{field}：引用的 {parent} {value} 不存在',
  },
  noLiveRecord: { en: 'recordId: no live {resource} with this id', zh: 'recordId：不存在该 id 的有效 {resource} 记录' },
  stillReferenced: {
    en: '{resource} {id} is still referenced by {child}.{field}',
    zh: '{resource} {id} 仍被 {child}.{field} 引用，无法删除',
  },
  stillHasAttachments: {
    en: '{resource} {id} still has live attachments (delete them first)',
    zh: '{resource} {id} 仍有附件（请先删除附件）',
  },
  batchSize: { en: 'list must hold 1 to {limit} items, got {count}', zh: 'list 须包含 1 至 {limit} 条数据，实际为 {count} 条' },
  illegalTransition: { en: '{field}: illegal transition {from} -> {to}', zh: '{field}：不允许从 {from} 变更为 {to}' },

  // Cross-field rules of the records.
  endAfterStart: { en: '{end}: must be after {start}', zh: '{end} 必须晚于 {start}' },
  thresholdOrder: {
    en: '{lower}, {upper}: {lower} ({lowerValue}) must not be greater than {upper} ({upperValue})',
    zh: '{lower}, {upper}：{lower}（{lowerValue}）不能大于 {upper}（{upperValue}）',
  },
  requiredWhen: { en: '{fields}: required when {condition}', zh: '{fields} 必填（当 {condition} 时）' },
  whenIs: { en: '{field} is {value}', zh: '{field} 为 {value}' },
  whenIsNot: { en: '{field} is not {value}', zh: '{field} 不为 {value}' },
  whenLeveledWork: {
    en: 'workType is 1 (hot work), 4 (work at height) or 5 (lifting)',
    zh: 'workType 为 1（动火作业）、4（高处作业）或 5（吊装作业）',
  },
  classifyPrefix: {
    en: 'classify1, classify2: the prefix of classify2 ({classify2}) must equal classify1 ({classify1})',
    zh: 'classify1, classify2：classify2（{classify2}）的前缀必须与 classify1（{classify1}）一致',
  },
  notSet: { en: 'not set', zh: '未设置' },
  workLevelNotForType: {
    en: 'workType, workLevel: workLevel is only for hot work (1), work at height (4) and lifting (5), not workType {workType}',
    zh: 'workType, workLevel：只有动火作业（1）、高处作业（4）和吊装作业（5）有 workLevel，workType {workType} 不适用',
  },
  workLevelOfType: {
    en: 'workType, workLevel: workLevel of workType {workType} must be one of {levels}',
    zh: 'workType, workLevel：workType 为 {workType} 时，workLevel 必须是以下之一：{levels}',
  },
  passAboveParticipants: {
    en: 'passCount, participantCount: passCount must not exceed participantCount',
    zh: 'passCount, participantCount：passCount 不能大于 participantCount',
  },

  // Searches and pages.
  searchUnknownField: { en: '{at}.field: unknown field {name}', zh: '{at}.field：未知字段 {name}' },
  searchIsNull: { en: '{at}.value: must be true or false for isNull', zh: '{at}.value：isNull 的值必须为 true 或 false' },
  searchLikeText: {
    en: '{at}.op: like applies to text fields only, not {field}',
    zh: '{at}.op：like 只适用于文本字段，{field} 不是文本字段',
  },
  searchLikeValue: { en: '{at}.value: must be a string for like', zh: '{at}.value：like 的值必须为字符串' },
  searchInValue: {
    en: '{at}.value: must be an array of 1 to {limit} values for in',
    zh: '{at}.value：in 的值必须是包含 1 至 {limit} 个值的数组',
  },
  searchUnknownOperator: { en: '{at}.op: unknown operator {op}', zh: '{at}.op：未知的运算符 {op}' },
  searchValue: { en: '{at}: must be {expected} for {field}', zh: '{at}：{field} 的值必须为{expected}' },
  kindString: { en: 'a string', zh: '字符串' },
  kindNumber: { en: 'a number', zh: '数字' },
  kindInteger: { en: 'an integer from {min} to {max}', zh: ' {min} 至 {max} 之间的整数' },
  kindInstant: { en: 'an ISO 8601 instant with offset', zh: '带时区偏移的 ISO 8601 时间' },
  kindDate: { en: 'a date YYYY-MM-DD', zh: ' YYYY-MM-DD 格式的日期' },
  kindBoolean: { en: 'true or false', zh: ' true 或 false' },
  notACursor: {
    en: 'after: not a cursor of this query (pass the `next` of the previous page, with the same orderBy)',
    zh: 'after：不是本查询的游标（请传入上一页返回的 `next`，并使用相同的 orderBy）',
  },

  // Attachments' content.
  contentTypeOneOf: { en: 'contentType: must be one of {types}', zh: 'contentType 必须是以下之一：{types}' },
  contentNotOfType: {
    en: 'content: not a {kind} file (contentType {contentType}); the bytes decide the type',
    zh: 'content：不是 {kind} 文件（contentType 为 {contentType}）；文件类型以实际内容为准',
  },
  contentNotBase64: {
    en: 'content: not valid base64 (RFC 4648, padded, no line breaks)',
    zh: 'content：不是有效的 base64 编码（RFC 4648，须带填充，不能换行）',
  },
  contentTooLarge: {
    en: 'content: larger than the limit of {limit} bytes decoded (ATTACHMENT_MAX_BYTES)',
    zh: 'content：解码后超过 {limit} 字节的上限（ATTACHMENT_MAX_BYTES）',
  },
  fileNameExtension: {
    en: 'fileName: extension .{extension} does not fit {contentType} (expected {expected})',
    zh: 'fileName：扩展名 .{extension} 与 {contentType} 不符（应为 {expected}）',
  },
  fileNameLength: { en: 'fileName: must be 1 to 255 characters', zh: 'fileName：长度须为 1 至 255 个字符' },
  fileNameSeparator: { en: 'fileName: must not contain a path separator (/ or \\)', zh: 'fileName：不能包含路径分隔符（/ 或 \\）' },
  fileNameControl: { en: 'fileName: must not contain control characters', zh: 'fileName：不能包含控制字符' },
  fileNameNotAFile: { en: 'fileName: must name a file', zh: 'fileName：必须是文件名' },
} as const satisfies Record<string, { readonly en: string; readonly zh: string }>

/** The placeholders of a template: the names inside `{…}`. */
export type Placeholders<Template extends string> = Template extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never

type Catalogue = typeof catalogue

/** The ids of the entries whose two languages name different placeholders. */
type Unmatched = {
  [Id in keyof Catalogue]: [Placeholders<Catalogue[Id]['en']>] extends [Placeholders<Catalogue[Id]['zh']>]
    ? [Placeholders<Catalogue[Id]['zh']>] extends [Placeholders<Catalogue[Id]['en']>]
      ? never
      : Id
    : Id
}[keyof Catalogue]

// Compiles only when no entry is unmatched; otherwise the error names the entries.
const placeholdersMatch: [Unmatched] extends [never] ? true : Unmatched = true
void placeholdersMatch
