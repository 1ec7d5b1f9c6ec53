package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/paging"
	"rmqconsole/store"
	"rmqconsole/views"
)

// AuditReader is what the audit pages need; *store.AuditLog implements it. Nothing here
// writes: no route edits or deletes an entry.
type AuditReader interface {
	List(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, bool, error)
	// Count is how many entries f keeps on every page.
	Count(ctx context.Context, f store.AuditFilter) (int64, error)
	Get(ctx context.Context, id int64) (*store.AuditEntry, error)
	Verify(ctx context.Context) (*store.ChainReport, error)
}

// Audit serves the audit log: the list with filters, one entry, exports and the API.
type Audit struct {
	*Env
	Entries AuditReader
	// Cluster is the cluster whose entries are listed when the query names none
	// (cluster=NAME lists another's, cluster=* every cluster's).
	Cluster string
	// DefaultCluster owns the entries written before clusters had names.
	DefaultCluster string
	// CanReset is set when the console can reset offsets (a NameServer is configured):
	// entries then offer to undo their reset.
	CanReset bool
}

// auditQuery is the filters as typed, and as read.
type auditQuery struct {
	// cluster is the cluster filter as asked ("" when the query names none).
	cluster string
	form    views.AuditFilterForm
	filter  store.AuditFilter
	// errs is every filter that cannot be read, in the order of the form.
	errs fault.List
	// limit is the page size; after the cursor the page starts after ("" on the first).
	limit int
	after string
}

// bad adds a filter that cannot be read: the API answers it "bad_request", as always.
func (q *auditQuery) bad(field, id string, kv ...any) {
	q.errs.Add(fault.InvalidField(field, id, kv...).Because("bad_request"))
}

// fieldErrors is each filter's sentence in l's language, for the form.
func (q auditQuery) fieldErrors(l *i18n.Localizer) map[string]string {
	out := map[string]string{}
	for _, e := range q.errs {
		out[e.Field] = e.Say(l)
	}
	return out
}

// parseAuditQuery reads the filters of /audit and /api/v1/audit. Times are UTC unless
// they say otherwise (RFC 3339), or epoch milliseconds.
func (h *Audit) parseAuditQuery(c *gin.Context) auditQuery {
	var q auditQuery
	get := func(k string) string { return strings.TrimSpace(c.Query(k)) }
	q.form = views.AuditFilterForm{Group: get("group"), Topic: get("topic"), Actor: get("actor"), Status: get("status"),
		Since: get("since"), Until: get("until"), Kind: get("kind")}
	q.cluster = get("cluster")
	if !slices.Contains(store.AuditKinds, q.form.Kind) {
		q.bad("kind", "audit.filter.bad_kind", "Kind", strconv.Quote(q.form.Kind))
	}
	// These filters reach the database as typed: the free-text rule first, so text no
	// database takes (NUL, bytes that are not UTF-8) is a sentence, not a failure.
	for _, f := range []struct {
		rule  freetext.Field
		value *string
	}{{freetext.AuditGroup, &q.form.Group}, {freetext.AuditTopic, &q.form.Topic}, {freetext.AuditActor, &q.form.Actor},
		{freetext.AuditCluster, &q.cluster}} {
		if err := f.rule.Check(*f.value); err != nil {
			q.errs.Add(refusedText(f.rule.Name, err))
			*f.value = freetext.Shown(*f.value) // shown again in the form and its links, escaped
		}
	}
	q.filter = store.AuditFilter{Group: q.form.Group, Topic: q.form.Topic, Actor: q.form.Actor, Status: store.AuditStatus(q.form.Status),
		Kind: q.form.Kind}
	switch q.cluster {
	case "":
		q.filter.Cluster = h.Cluster
	case "*": // every cluster
	default:
		q.filter.Cluster = q.cluster
	}
	if q.form.Status != "" && !q.filter.Status.Valid() {
		q.bad("status", "audit.filter.bad_status", "Status", strconv.Quote(q.form.Status), "Statuses", statusList())
	}
	switch s := get("hideRefused"); s {
	case "", "0", "false":
	case "1", "true", "on":
		q.form.HideRefused, q.filter.HideRefused = true, true
		if q.filter.Status == store.AuditRefused {
			q.bad("status", "audit.filter.refused_hidden")
		}
	default:
		q.bad("hideRefused", "audit.filter.bad_hide", "Value", strconv.Quote(s))
	}
	for _, tf := range []struct {
		name string
		dst  *time.Time
	}{{"since", &q.filter.Since}, {"until", &q.filter.Until}} {
		s := c.Query(tf.name)
		t, err := parseTimeInput(s, time.UTC)
		if err != nil {
			q.bad(tf.name, "audit.filter.bad_time", "Value", strconv.Quote(s))
		}
		*tf.dst = t
	}
	if !q.filter.Since.IsZero() && !q.filter.Until.IsZero() && !q.filter.Until.After(q.filter.Since) {
		q.bad("until", "audit.filter.end_before_start")
	}
	// before=<id> pages as the list did before it took cursors; kept for the links and
	// scripts that still say it.
	if s := get("before"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			q.filter.BeforeID = n
		} else {
			q.bad("before", "audit.filter.bad_before")
		}
	}
	var err error
	if q.limit, err = paging.ParseLimit(c.Query("limit")); err != nil {
		q.errs.Add(fault.As(err))
	}
	q.filter.Limit = q.limit
	if q.after = c.Query("cursor"); q.after != "" && len(q.errs) == 0 {
		cur, err := paging.Decode(q.pageQuery(), q.after)
		if err == nil && (cur.Num == nil || *cur.Num < 1) {
			err = fault.InvalidField("cursor", "list.error.cursor").Because("bad_cursor")
		}
		if err != nil {
			q.errs.Add(fault.As(err))
		} else {
			q.filter.BeforeID = *cur.Num
		}
	}
	return q
}

// pageQuery is the order and filter the list's cursors belong to: newest first, by id,
// under the filters as read, so a cursor of another filter is refused.
func (q auditQuery) pageQuery() paging.Query {
	f := q.filter
	return paging.Query{Sort: "id", Desc: true, Filter: []string{f.Kind, f.Cluster, f.Group, f.Topic, f.Actor,
		string(f.Status), strconv.FormatBool(f.HideRefused), f.Since.String(), f.Until.String()}}
}

// cursorAfter is the cursor of the page that ends with the entry id.
func (q auditQuery) cursorAfter(id int64) string {
	return paging.Encode(q.pageQuery(), paging.Cursor{Name: strconv.FormatInt(id, 10), Num: &id})
}

// auditPage is one page of the entries q keeps, newest first: the entries, how many
// match on every page (-1 when unknown), and the cursor of the next page ("" on the
// last). For a caller whose rights narrow what they see, the store's pages are read
// and the entries they may not see dropped (rights are patterns, which no WHERE over
// names can express), up to auditScanPages pages; counting what they may see would
// read the whole log, so the total is then unknown.
func (h *Audit) auditPage(c *gin.Context, q auditQuery) ([]store.AuditEntry, int, string, error) {
	ctx := c.Request.Context()
	r := CallerRights(c)
	if r.Limited() {
		return h.visiblePage(c, q, r)
	}
	entries, more, err := h.Entries.List(ctx, q.filter)
	if err != nil {
		return nil, 0, "", err
	}
	total, err := h.Entries.Count(ctx, q.filter)
	if err != nil {
		return nil, 0, "", err
	}
	next := ""
	if more && len(entries) > 0 {
		next = q.cursorAfter(entries[len(entries)-1].ID)
	}
	return entries, int(total), next, nil
}

// auditScanPages bounds the store pages one page of a narrowed caller reads: a page
// may then hold fewer entries than its limit, and its cursor goes on from the last
// entry read.
const auditScanPages = 20

// visiblePage is auditPage for a caller whose rights narrow what they see.
func (h *Audit) visiblePage(c *gin.Context, q auditQuery, r Rights) ([]store.AuditEntry, int, string, error) {
	f := q.filter
	want := f.Limit
	if want <= 0 {
		want = store.AuditDefaultLimit
	}
	var out []store.AuditEntry
	for range auditScanPages {
		page, more, err := h.Entries.List(c.Request.Context(), f)
		if err != nil {
			return nil, 0, "", err
		}
		for i, e := range page {
			f.BeforeID = e.ID
			if !r.auditVisible(&e, h.DefaultCluster) {
				continue
			}
			if out = append(out, e); len(out) == want {
				if i < len(page)-1 || more {
					return out, -1, q.cursorAfter(e.ID), nil
				}
				return out, -1, "", nil
			}
		}
		if !more || len(page) == 0 {
			return out, -1, "", nil
		}
	}
	return out, -1, q.cursorAfter(f.BeforeID), nil
}

// refusedText is the free-text rule's refusal of a filter, as a filter that cannot be
// read, in the rule's own sentence.
func refusedText(field string, err error) *fault.Error {
	e := &fault.Error{Code: fault.Invalid, Reason: "bad_request", Field: field, Msg: i18n.Plain(err.Error()), Err: err}
	if fe := fault.As(err); fe != nil {
		e.Msg = fe.Msg
	}
	return e
}

func statusList() string {
	var s []string
	for _, st := range store.AuditStatuses {
		s = append(s, string(st))
	}
	return strings.Join(s, ", ")
}

// values is the query without paging, for export and paging links.
func (q auditQuery) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"group": q.form.Group, "topic": q.form.Topic, "actor": q.form.Actor,
		"status": q.form.Status, "since": q.form.Since, "until": q.form.Until, "kind": q.form.Kind} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.form.HideRefused {
		v.Set("hideRefused", "1")
	}
	if q.cluster != "" {
		v.Set("cluster", q.cluster)
	}
	return v
}

// List is GET /audit, a page of entries at a time; with rows=1 from htmx, the next
// page's rows alone for the More row.
func (h *Audit) List(c *gin.Context) {
	q := h.parseAuditQuery(c)
	ctx := c.Request.Context()
	l := i18n.From(ctx)
	vm := views.AuditListVM{Filter: q.form, FieldErrors: q.fieldErrors(l)}
	for _, s := range store.AuditStatuses {
		vm.Statuses = append(vm.Statuses, string(s))
	}
	vm.Clusters = h.clusterOptions(l, q)
	base := q.values()
	vm.ExportCSV = "/audit/export?" + withFormat(base, "csv")
	vm.ExportJSON = "/audit/export?" + withFormat(base, "json")
	p := h.page(c, l.T("audit.title"), "audit")
	rowsOnly := c.Query("rows") == "1" && isHTMX(c)
	if len(q.errs) > 0 {
		vm.Chain = h.chainVM(ctx)
		vm.Error = l.T("audit.filter.invalid", "Errors", q.errs.Say(l))
		h.render(c, http.StatusUnprocessableEntity, p, views.AuditListPage(vm))
		return
	}
	entries, total, next, err := h.auditPage(c, q)
	if err != nil {
		h.Fail(c, err)
		return
	}
	for i := range entries {
		row := auditRowVM(l, &entries[i])
		if vm.Clusters != nil {
			row.Cluster = h.clusterLabel(entries[i].ClusterName)
		}
		vm.Rows = append(vm.Rows, row)
	}
	list := "/audit"
	if len(base) > 0 {
		list += "?" + base.Encode()
	}
	vm.Total, vm.Shown = total, shownThrough(c, len(entries))
	vm.TotalUnknown = total < 0
	if next != "" {
		vm.NextURL = listPageURL(list, q.limit, next, vm.Shown, false)
		vm.MoreURL = listPageURL(list, q.limit, next, vm.Shown, true)
	}
	if q.filter.BeforeID > 0 {
		vm.FirstURL = list
	}
	if rowsOnly {
		h.renderFragment(c, http.StatusOK, views.AuditRowsFragment(vm))
		return
	}
	vm.Chain = h.chainVM(ctx)
	h.render(c, http.StatusOK, p, views.AuditListPage(vm))
}

// clusterOptions is the filter's cluster choice when the console has several clusters
// (nil with one): every cluster, then each configured cluster by its label, the one the
// query asks for (the page's cluster when it asks for none) selected.
func (h *Audit) clusterOptions(l *i18n.Localizer, q auditQuery) []views.AuditClusterOption {
	if h.Env.Cluster == nil || len(h.Env.Cluster.All) < 2 {
		return nil
	}
	selected := q.cluster
	if selected == "" {
		selected = h.Cluster
	}
	opts := []views.AuditClusterOption{{Value: "*", Label: l.T("audit.filter.all_clusters"), Selected: selected == "*"}}
	for _, c := range h.Env.Cluster.All {
		opts = append(opts, views.AuditClusterOption{Value: c.Name, Label: c.Label, Selected: selected == c.Name})
	}
	return opts
}

// clusterLabel is how the list names an entry's cluster: its configured label, the
// default cluster's for entries written before clusters had names, the name itself for
// a cluster no longer configured.
func (h *Audit) clusterLabel(name string) string {
	if name == "" {
		name = h.DefaultCluster
	}
	for _, c := range h.Env.Cluster.All {
		if c.Name == name {
			return c.Label
		}
	}
	return name
}

func withFormat(v url.Values, format string) string {
	out := url.Values{}
	for k, s := range v {
		out[k] = s
	}
	out.Set("format", format)
	return out.Encode()
}

func auditRowVM(l *i18n.Localizer, e *store.AuditEntry) views.AuditRowVM {
	if e.Mode == store.SignInMode {
		return signInRowVM(l, e)
	}
	changed := countOf(l, len(e.Queues()), "queue")
	switch {
	case store.IsReadMode(e.Mode):
		changed = countOf(l, readRows(e), "message")
	case !isResetEntry(e):
		changed = countOf(l, len(e.Result), changeUnit(e.Mode))
	}
	return views.AuditRowVM{
		ID: strconv.FormatInt(e.ID, 10), URL: auditURL(e.ID), Started: views.TimeUTC(e.StartedAt), Actor: e.Actor,
		ActorAddr: e.ActorAddr, Group: e.Group, GroupURL: views.GroupURL(e.Group), Topics: strings.Join(e.Topics, ", "),
		Mode: e.Mode, Status: string(e.Status), StatusClass: auditStatusClass(e.Status),
		Changed: changed, Reason: e.Reason, Error: l.SayText(e.Error), Refused: e.Status == store.AuditRefused,
	}
}

func (h *Audit) chainVM(ctx context.Context) views.ChainVM {
	rep, err := h.Entries.Verify(ctx)
	if err != nil {
		return views.ChainVM{Error: err.Error()}
	}
	vm := views.ChainVM{Checked: true, Intact: rep.Intact, Sealed: views.Thousands(int64(rep.Sealed)),
		Pending: views.Thousands(int64(rep.Pending)), Head: rep.Head}
	for _, p := range rep.Problems {
		vm.Problems = append(vm.Problems, p.Reason)
	}
	return vm
}

// AuditListJSON is GET /api/v1/audit.
type AuditListJSON struct {
	// Entries is one page, newest first: limit entries (paging.DefaultLimit when the
	// request gives none).
	Entries []AuditEntryJSON `json:"entries"`
	Limit   int              `json:"limit"`
	// Total counts the entries the filter keeps, on every page; null, with
	// TotalUnknown, for a caller whose rights hide some entries (counting those they may
	// see would read the whole log).
	Total        *int `json:"total"`
	TotalUnknown bool `json:"totalUnknown,omitempty"`
	// Next is the cursor of the following page; absent on the last one.
	Next string `json:"next,omitempty"`
	// Truncated is set when older entries matched. Deprecated: use next.
	Truncated bool               `json:"truncated"`
	Chain     *store.ChainReport `json:"chain,omitempty"`
}

// ListAPI is GET /api/v1/audit[?group=&topic=&actor=&status=&hideRefused=&since=&until=&kind=&cluster=&limit=&cursor=]
// (before=<id> still pages as it did).
func (h *Audit) ListAPI(c *gin.Context) {
	q := h.parseAuditQuery(c)
	if len(q.errs) > 0 {
		h.Fail(c, q.errs)
		return
	}
	ctx := c.Request.Context()
	entries, total, next, err := h.auditPage(c, q)
	if err != nil {
		h.Fail(c, err)
		return
	}
	out := AuditListJSON{Entries: make([]AuditEntryJSON, len(entries)), Limit: q.limit, Total: &total, Next: next, Truncated: next != ""}
	if total < 0 {
		out.Total, out.TotalUnknown = nil, true
	}
	for i := range entries {
		out.Entries[i] = auditEntryJSON(&entries[i])
	}
	if rep, err := h.Entries.Verify(ctx); err == nil {
		out.Chain = rep
	}
	c.JSON(http.StatusOK, out)
}

// readRows is how many messages a read's entry says its answer carried.
func readRows(e *store.AuditEntry) int {
	var p struct {
		Rows int `json:"rows"`
	}
	_ = json.Unmarshal(e.Params, &p)
	return p.Rows
}
