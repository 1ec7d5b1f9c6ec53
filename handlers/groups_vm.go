package handlers

import (
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"rmqconsole/fault"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
	"rmqconsole/views"
)

// View models of the consumer group pages, built from the groups service's results.
// They are shared by the pages and the live frames, so both render the same rows.

func groupBehindCell(ms *int64, note string) views.BehindCell {
	if ms == nil {
		return views.BehindCell{Note: note}
	}
	return views.BehindCell{Known: true, Ms: *ms, Note: note}
}

func groupLagCell(lag *int64, note string) views.LagCell {
	if lag == nil {
		return views.LagCell{Note: note}
	}
	return views.LagCell{Known: true, Value: *lag, Note: note}
}

func groupEpochMs(ms int64) (text, iso string) {
	if ms <= 0 {
		return "", ""
	}
	t := time.UnixMilli(ms)
	return views.TimeUTC(t), views.ISO(t)
}

func groupOffsetText(p *int64) string {
	if p == nil {
		return "—"
	}
	return views.Thousands(*p)
}

// groupRowVM is one list row.
func groupRowVM(l *i18n.Localizer, s groups.Summary) views.GroupRow {
	r := views.GroupRow{
		Group: s.Group, URL: views.GroupURL(s.Group), System: s.System, Online: s.Online, Clients: s.Clients,
		ConsumeType: groups.ConsumeTypeLabel(s.ConsumeType), MessageModel: s.MessageModel, ConsumeMode: s.ConsumeMode, Topics: s.Topics,
		Lag: groupLagCell(s.TotalLag, l.SayText(s.LagNote)), Behind: groupBehindCell(s.MaxLagTimeMs, l.SayText(s.MaxLagTimeNote)), TPS: views.Rate(s.ConsumeTPS), Failures: sayFailures(l, s.Failures),
	}
	r.Last, r.LastISO = groupEpochMs(s.LastTimestamp)
	r.ClientsUnknown = s.ClientsUnknown
	if s.ClientsCheckedAt != nil {
		r.ClientsAt = views.TimeUTC(*s.ClientsCheckedAt)
	}
	return r
}

// QueueDOMID is the element id of a queue's row: stable across frames, whatever
// characters the topic holds.
func QueueDOMID(mq rocketmq.MessageQueue) string {
	h := fnv.New64a()
	h.Write([]byte(groups.QueueKey(mq)))
	return "q-" + strconv.FormatUint(h.Sum64(), 36)
}

// lagGrowing reports whether the recent samples rose for real: every value of the
// window's last third is above every value of its first third, by at least two messages
// and 5 % on average. Lag jitters by a few messages as batches are stored and consumed;
// comparing only the first and the last sample called one of several equal queues
// "growing" at random.
func lagGrowing(values []float64) bool {
	var known []float64
	for _, v := range values {
		if !math.IsNaN(v) {
			known = append(known, v)
		}
	}
	if len(known) < 3 {
		return false
	}
	third := len(known) / 3
	first, last := known[:third], known[len(known)-third:]
	if slices.Min(last) <= slices.Max(first) {
		return false
	}
	mean := func(xs []float64) float64 {
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		return sum / float64(len(xs))
	}
	rise := mean(last) - mean(first)
	return rise >= 2 && rise >= 0.05*mean(first)
}

// lockCellVM shows an orderly queue's lock.
func lockCellVM(loc *i18n.Localizer, group string, l *groups.QueueLock) *views.LockCell {
	if l == nil {
		return nil
	}
	c := &views.LockCell{Holder: l.Holder, Locked: l.Locked, HolderOnline: l.HolderOnline, Blocked: l.Blocked, Warning: loc.SayText(l.Warning)}
	if l.Holder != "" && l.HolderOnline {
		c.HolderURL = views.ClientURL(group, l.Holder)
	}
	if l.Holder != "" {
		c.Renewed, c.RenewedISO = groupEpochMs(l.LastLockTimestamp)
	}
	c.Since, c.SinceISO = groupEpochMs(l.LockedSince)
	return c
}

func queueRowVM(l *i18n.Localizer, d *groups.Detail, q groups.QueueLag, hist *groups.History) views.QueueRow {
	group := d.Group
	mq := q.Queue()
	r := views.QueueRow{
		DOMID: QueueDOMID(mq), Topic: q.Topic, TopicURL: views.TopicMessagesURL(q.Topic), Retry: q.Retry,
		Broker: q.BrokerName, QueueID: q.QueueID,
		BrokerOffset: groupOffsetText(q.BrokerOffset), ConsumerOffset: groupOffsetText(q.ConsumerOffset),
		Lag: groupLagCell(q.Lag, l.SayText(q.LagUnknown)), Behind: groupBehindCell(q.LagTimeMs, l.SayText(q.LagTimeUnknown)), InFlight: "—", Owner: q.Owner, Owners: q.Owners, OwnerUnknown: q.OwnerUnknown, Popped: d.Pop != nil,
		Spark: views.Sparkline{Empty: true},
	}
	if q.InFlight != nil {
		r.InFlight = views.Thousands(*q.InFlight)
	}
	r.Lock = lockCellVM(l, group, q.Lock)
	r.Last, r.LastISO = groupEpochMs(q.LastTimestamp)
	if hist != nil {
		if vals := hist.Queues[mq]; len(vals) > 1 {
			r.Spark = views.NewSparkline(l, vals)
			r.Lag.Growing = lagGrowing(vals)
		}
	}
	return r
}

func clientRowsVM(l *i18n.Localizer, d *groups.Detail) []views.ClientRow {
	idle := map[string]bool{}
	if d.Assignment.Applicable {
		for _, c := range d.Assignment.IdleClients {
			idle[c] = true
		}
	}
	out := make([]views.ClientRow, 0, len(d.Clients))
	for _, c := range d.Clients {
		r := views.ClientRow{ID: c.ClientID, Addr: c.ClientAddr, Language: c.Language, Version: c.Version,
			VersionNote: l.SayText(c.VersionNote), Protocol: c.Protocol, KnownTo: c.KnownTo,
			Strategy: c.Strategy, ConsumeMode: c.ConsumeMode, URL: views.ClientURL(d.Group, c.ClientID),
			Differs: c.SubscriptionDiffers, Queues: c.Queues, Idle: idle[c.ClientID],
			TPS: views.Rate(c.ConsumeTPS), Error: l.SayText(c.RunningInfoError)}
		if c.KnownTo != groups.KnownToBroker {
			// Known to a Proxy only: its subscriptions are the Proxy's, and it has no running info by design.
			r.Note, r.Error = r.Error, ""
		}
		if r.Strategy == "" && c.StrategyProperty != "" {
			r.Strategy = c.StrategyProperty
		}
		for _, s := range c.Subscriptions {
			r.Subscriptions = append(r.Subscriptions, s.Topic+" : "+s.Expression)
		}
		out = append(out, r)
	}
	return out
}

func topicRowsVM(l *i18n.Localizer, d *groups.Detail) []views.TopicRow {
	out := make([]views.TopicRow, 0, len(d.Topics))
	for _, t := range d.Topics {
		r := views.TopicRow{Topic: t.Topic, URL: views.TopicMessagesURL(t.Topic), Retry: t.Retry, Queues: t.Queues, Owned: t.Owned, OwnerUnknown: t.OwnerUnknown}
		lag := t.Lag
		switch {
		case t.Unknown == t.Queues:
			r.Lag = views.LagCell{Note: l.T("group.topic.lagUnknown")}
		case t.Unknown > 0:
			r.Lag = views.LagCell{Known: true, Value: lag, Note: l.N("group.topic.lagPartial", t.Unknown)}
		default:
			r.Lag = views.LagCell{Known: true, Value: lag}
		}
		r.Last, r.LastISO = groupEpochMs(t.LastTime)
		out = append(out, r)
	}
	return out
}

func assignmentVM(l *i18n.Localizer, a groups.Assignment) views.AssignmentVM {
	vm := views.AssignmentVM{Applicable: a.Applicable, Note: l.SayText(a.Note), Strategy: a.Strategy, Matches: a.Matches,
		Unowned: a.Unowned, OwnedTwice: a.OwnedTwice, Differs: a.Differs, OwnerUnknown: a.OwnerUnknown, IdleClients: a.IdleClients,
		MoreClientsThanQueues: a.MoreClientsThanQueues}
	for _, q := range a.Queues {
		vm.Rows = append(vm.Rows, views.AssignmentRow{Topic: q.Topic, Broker: q.BrokerName, QueueID: q.QueueID,
			Expected: q.Expected, Actual: q.Actual, Problem: q.Problem})
	}
	return vm
}

func headerVM(l *i18n.Localizer, d *groups.Detail, hist *groups.History) views.GroupHeader {
	h := views.GroupHeader{Online: d.Online, ClientsUnknown: d.ClientsUnknown, Clients: len(d.Clients), ConsumeType: groups.ConsumeTypeLabel(d.ConsumeType), MessageModel: d.MessageModel,
		TotalLag: groupLagCell(d.TotalLag, l.SayText(d.TotalLagNote)), Behind: groupBehindCell(d.MaxLagTimeMs, l.SayText(d.MaxLagTimeNote)), TPS: views.Rate(d.ConsumeTPS),
		ConsumeMode: d.ConsumeMode,
		CheckedAt:   views.TimeUTC(d.CheckedAt), CheckedISO: views.ISO(d.CheckedAt), Failures: sayFailures(l, d.Failures),
		FromSlaves: sayFromSlaves(l, d.FromSlaves, "cluster.slave.what.offsets")}
	if d.HiddenTopics > 0 {
		h.HiddenTopics = l.N("rights.hidden_topics", d.HiddenTopics)
	}
	if hist != nil && len(hist.Totals) > 1 {
		vals := make([]float64, 0, groups.QueueSamples)
		for _, s := range hist.Totals[max(0, len(hist.Totals)-groups.QueueSamples):] {
			vals = append(vals, s.Lag)
		}
		h.TotalLag.Growing = lagGrowing(vals)
	}
	for _, b := range d.Blocked {
		h.Blocked = append(h.Blocked, l.SayText(b))
	}
	h.MixedNote, h.Needs5x = l.SayText(d.MixedNote), l.SayText(d.Needs5x)
	if p := d.Pop; p != nil {
		h.Pop = &views.PopVM{Ready: views.Thousands(p.Ready), Retry: views.Thousands(p.Retry),
			InFlightNote: l.SayText(p.InFlightNote), PollingNote: l.SayText(p.PollingNote), Note: l.SayText(p.Note)}
		if p.Polling != nil {
			h.Pop.Polling = strconv.Itoa(*p.Polling)
		}
		if p.InFlight != nil {
			h.Pop.InFlight = views.Thousands(*p.InFlight)
		}
	}
	return h
}

// eventRowVM says an event in words.
func eventRowVM(l *i18n.Localizer, e groups.Event) views.EventRow {
	r := views.EventRow{At: views.TimeUTC(e.At), ISO: views.ISO(e.At), Kind: e.Kind}
	switch e.Kind {
	case groups.KindJoined:
		r.Text = l.T("group.event.joined", "Client", e.ClientID)
	case groups.KindLeft:
		r.Text = l.T("group.event.left", "Client", e.ClientID)
	case groups.KindMoved:
		q := e.Topic + " " + e.BrokerName + "/" + strconv.Itoa(groupQueueID(e.QueueID))
		from := e.From
		if from == "" {
			from = l.T("group.event.noOwner")
		}
		r.Text = l.T("group.event.moved", "Queue", q, "From", from, "To", e.To)
		if e.UnownedMs > 0 {
			r.Text += l.T("group.event.moved.unowned", "Span", msSpan(l, e.UnownedMs, 100*time.Millisecond))
		}
		if e.DuplicatesAtRisk != nil && *e.DuplicatesAtRisk > 0 {
			r.Text += l.N("group.event.moved.duplicates", int(*e.DuplicatesAtRisk), "From", from)
		}
		r.Text += l.T("group.event.end")
	case groups.KindLocked:
		q := e.Topic + " " + e.BrokerName + "/" + strconv.Itoa(groupQueueID(e.QueueID))
		if e.From == "" {
			r.Text = l.T("group.event.locked", "Queue", q, "To", e.To)
		} else {
			r.Text = l.T("group.event.handover", "Queue", q, "From", e.From, "To", e.To)
			if e.UnlockedMs > 0 {
				r.Text += l.T("group.event.handover.unlocked", "Span", msSpan(l, e.UnlockedMs, time.Second))
			}
			r.Text += l.T("group.event.end")
		}
	default:
		r.Text = e.Kind + " " + e.ClientID
	}
	return r
}

func groupQueueID(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func timelineVM(l *i18n.Localizer, events []groups.Event) []views.EventRow {
	out := make([]views.EventRow, 0, len(events))
	for _, e := range events {
		out = append(out, eventRowVM(l, e))
	}
	return out
}

// chartJSON is the total-lag series for the chart: unix seconds and lags (null when
// unknown).
type chartJSON struct {
	T []float64  `json:"t"`
	V []*float64 `json:"v"`
}

func groupChartData(hist *groups.History) string {
	c := chartJSON{T: []float64{}, V: []*float64{}}
	if hist != nil {
		for _, s := range hist.Totals {
			c.T = append(c.T, float64(s.At.UnixMilli())/1000)
			c.V = append(c.V, groupFinite(s.Lag))
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

func groupPointJSON(s groups.LagSample) string {
	if s.At.IsZero() {
		return ""
	}
	b, _ := json.Marshal(struct {
		T float64  `json:"t"`
		V *float64 `json:"v"`
	}{float64(s.At.UnixMilli()) / 1000, groupFinite(s.Lag)})
	return string(b)
}

func groupFinite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// groupPageVM is the whole group page.
func groupPageVM(l *i18n.Localizer, d *groups.Detail, hist *groups.History, recent []groups.Event, days []store.RebalanceDay, daysErr error, poll time.Duration) views.GroupVM {
	vm := views.GroupVM{
		Configured: true, Group: d.Group,
		ResetURL: views.GroupURL(d.Group) + "/reset", WSURL: "/ws" + views.GroupURL(d.Group),
		HistoryURL: "/api/v1" + views.GroupURL(d.Group) + "/rebalances",
		Poll:       views.DurationIn(l, poll), GroupHeader: headerVM(l, d, hist),
		Clients: clientRowsVM(l, d), SubscriptionsDiffer: d.SubscriptionsDiffer,
		Topics: topicRowsVM(l, d), Assignment: assignmentVM(l, d.Assignment),
		Timeline: timelineVM(l, recent), ChartData: groupChartData(hist),
		Cost: costVM(l, recent, days, daysErr),
	}
	for _, q := range d.Queues {
		vm.Queues = append(vm.Queues, queueRowVM(l, d, q, hist))
	}
	if d.Pop != nil {
		vm.TimelineNote = l.T("group.timeline.pop")
	}
	return vm
}

// frameVM is one live frame: only what u says changed.
func frameVM(l *i18n.Localizer, u *groups.Update) views.GroupFrameVM {
	f := views.GroupFrameVM{}
	d := u.Detail
	if d == nil {
		f.Header = views.GroupHeader{LiveError: groupErrText(l, u.Err), CheckedAt: "—"}
		return f
	}
	f.Header = headerVM(l, d, u.History)
	if u.Err != nil {
		f.Header.LiveError = groupErrText(l, u.Err)
		return f
	}
	full := u.Full
	f.QueuesAll = full || u.QueuesReshaped
	f.TopicsChanged = f.QueuesAll || len(u.ChangedQueues) > 0
	if f.QueuesAll {
		for _, q := range d.Queues {
			f.Queues = append(f.Queues, queueRowVM(l, d, q, u.History))
		}
	} else if len(u.ChangedQueues) > 0 {
		changed := map[rocketmq.MessageQueue]bool{}
		for _, mq := range u.ChangedQueues {
			changed[mq] = true
		}
		for _, q := range d.Queues {
			if changed[q.Queue()] {
				f.Queues = append(f.Queues, queueRowVM(l, d, q, u.History))
			}
		}
	}
	if f.TopicsChanged {
		f.Topics = topicRowsVM(l, d)
	}
	f.ClientsChanged = full || u.ClientsChanged || u.AssignmentChanged
	if f.ClientsChanged {
		f.Clients, f.SubscriptionsDiffer = clientRowsVM(l, d), d.SubscriptionsDiffer
	}
	f.AssignmentChanged = full || u.AssignmentChanged
	if f.AssignmentChanged {
		f.Assignment = assignmentVM(l, d.Assignment)
	}
	if full || u.Reloaded {
		f.TimelineAll, f.Timeline = true, timelineVM(l, u.Recent)
	} else {
		// Events arrive oldest first within a tick; the timeline shows newest first.
		for i := len(u.Events) - 1; i >= 0; i-- {
			f.NewEvents = append(f.NewEvents, eventRowVM(l, u.Events[i]))
		}
	}
	if full {
		f.ChartAll, f.ChartData = true, groupChartData(u.History)
	} else {
		f.Point = groupPointJSON(u.Sample)
	}
	if full || len(u.Events) > 0 || u.Reloaded {
		f.RebalancesChanged, f.Rebalances = true, rebalanceRowsVM(l, u.Recent)
	}
	// The daily sums are redrawn with the timeline they sum, from the same store.
	if (full || u.Reloaded) && u.Days != nil {
		f.DaysChanged, f.Cost = true, costVM(l, nil, u.Days, nil)
	}
	return f
}

// costVM is the cost section: recent rebalances and the stored days.
func costVM(l *i18n.Localizer, recent []groups.Event, days []store.RebalanceDay, daysErr error) views.CostVM {
	c := views.CostVM{Rebalances: rebalanceRowsVM(l, recent), Note: l.Say(groups.DuplicatesNote)}
	if daysErr != nil {
		c.DaysError = l.T("group.cost.daysError", "Error", groupErrText(l, daysErr))
	}
	for _, d := range days {
		r := views.DayRow{Day: d.Day, Moves: views.Thousands(d.Moves), Duplicates: duplicatesText(l, d.DuplicatesAtRisk, d.UnknownMoves),
			Unowned: msSpan(l, d.UnownedMs, time.Second)}
		c.Days = append(c.Days, r)
	}
	return c
}

func rebalanceRowsVM(l *i18n.Localizer, recent []groups.Event) []views.RebalanceRow {
	out := []views.RebalanceRow{}
	for _, r := range groups.Rebalances(recent) {
		out = append(out, views.RebalanceRow{Start: views.TimeUTC(r.Start), StartISO: views.ISO(r.Start), End: views.TimeUTC(r.End),
			Moves: r.Moves, LockHandovers: r.LockHandovers, Duplicates: duplicatesText(l, r.DuplicatesAtRisk, int64(r.UnknownMoves)),
			MaxUnowned: msSpan(l, r.MaxUnownedMs, 100*time.Millisecond)})
	}
	return out
}

// msSpan writes a span of ms milliseconds rounded to round: "1.2s", "3m4s" in English,
// "1.2 秒", "3 分钟 4 秒" in Chinese.
func msSpan(l *i18n.Localizer, ms int64, round time.Duration) string {
	d := (time.Duration(ms) * time.Millisecond).Round(round)
	if l.IsChinese() {
		return views.SpanIn(l, d)
	}
	return d.String()
}

// duplicatesText is a sum of bounds, saying how many moves had none.
func duplicatesText(l *i18n.Localizer, n, unknown int64) string {
	s := "≤ " + views.Thousands(n)
	if unknown > 0 {
		s += l.N("group.cost.unknownMoves", int(unknown))
	}
	return s
}

// groupErrText is err as a clause of a sentence in l's language: a fault or a Message the
// services hand up is said in it, a broker's failure in the cluster layer's words,
// anything else as it reads.
func groupErrText(l *i18n.Localizer, err error) string {
	if err == nil {
		return ""
	}
	var m i18n.Message
	s := sayErr(l, err)
	if fe := fault.As(err); fe != nil {
		s = fe.Say(l)
	} else if errors.As(err, &m) {
		s = l.Say(m)
	}
	return strings.TrimSuffix(strings.TrimSuffix(s, "."), "。")
}
