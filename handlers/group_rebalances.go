package handlers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/groups"
	"rmqconsole/store"
)

// GroupRebalances is GET /api/v1/groups/{group}/rebalances: the stored rebalance history,
// newest first.
type GroupRebalances struct {
	*Env
	Events RebalanceHistory
}

// RebalancesJSON is the answer.
type RebalancesJSON struct {
	Group  string         `json:"group"`
	Events []groups.Event `json:"events"`
	// Limit is how many events were asked for at most; fewer means the history ends.
	Limit int `json:"limit"`
	// Rebalances sums the events of this page into rebalances (events less than
	// groups.RebalanceGap apart), newest first.
	Rebalances []groups.Rebalance `json:"rebalances"`
	// Days sums every stored move of the last groups.CostDays UTC days, newest first, whatever
	// the page.
	Days []RebalanceDayJSON `json:"days"`
	// DuplicatesNote says what duplicatesAtRisk is: an upper bound, and where it comes from.
	DuplicatesNote string `json:"duplicatesNote"`
	// HiddenEvents counts the events of this page left out because they move queues of
	// topics the caller's rights hide (HiddenTopics counts those topics): the history
	// ends when Events and HiddenEvents together are fewer than Limit.
	HiddenEvents int `json:"hiddenEvents,omitempty"`
	HiddenTopics int `json:"hiddenTopics,omitempty"`
}

// RebalanceDayJSON is one UTC day of moves.
type RebalanceDayJSON struct {
	Day              string `json:"day"`
	Moves            int64  `json:"moves"`
	DuplicatesAtRisk int64  `json:"duplicatesAtRisk"`
	UnknownMoves     int64  `json:"unknownMoves"`
	UnownedMs        int64  `json:"unownedMs"`
}

// API answers [?limit=N (1..1000, default 200)&before=RFC 3339 or epoch ms].
func (h *GroupRebalances) API(c *gin.Context) {
	group, ok := h.groupParam(c)
	if !ok {
		return
	}
	limit := 200
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > store.MaxRebalanceEvents {
			h.Fail(c, fault.InvalidField("limit", "group.error.limit", "Max", store.MaxRebalanceEvents).Because("bad_limit"))
			return
		}
		limit = n
	}
	var before time.Time
	if !h.queryTime(c, "before", &before) {
		return
	}
	stored, err := h.Events.RebalanceEvents(c.Request.Context(), group, limit, before)
	if err != nil {
		h.Fail(c, err)
		return
	}
	days, err := h.Events.RebalanceDays(c.Request.Context(), group, groups.CostSince(time.Now()))
	if err != nil {
		h.Fail(c, err)
		return
	}
	all := groups.EventsFromStore(stored)
	view := viewOfGroup(CallerRights(c), group)
	events := view.events(all)
	out := RebalancesJSON{HiddenEvents: len(all) - len(events), HiddenTopics: view.hiddenCount(), Group: group, Events: events, Limit: limit, Rebalances: groups.Rebalances(events),
		Days: make([]RebalanceDayJSON, len(days)), DuplicatesNote: groups.DuplicatesNote.String()}
	if out.Rebalances == nil {
		out.Rebalances = []groups.Rebalance{}
	}
	for i, d := range days {
		out.Days[i] = RebalanceDayJSON(d)
	}
	c.JSON(http.StatusOK, out)
}

// queryTime reads the API's time parameter name (parseTimeInput's forms, in UTC) into
// *into when it is given. It answers 400 naming the parameter and returns false when it
// cannot be read.
func (e *Env) queryTime(c *gin.Context, name string, into *time.Time) bool {
	t, err := parseTimeInput(c.Query(name), time.UTC)
	if err != nil {
		e.Fail(c, fault.InvalidField(name, "group.error.time", "Name", name).Because("bad_"+name))
		return false
	}
	if !t.IsZero() {
		*into = t
	}
	return true
}
