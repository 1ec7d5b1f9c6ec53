package handlers

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/lookup"
	"rmqconsole/paging"
	"rmqconsole/resets"
	"rmqconsole/rights"
	"rmqconsole/views"
)

// messageResetVM offers to reset one of the topic's groups to the message, to those who
// may reset offsets: the groups subscribed to the topic or with an offset on it.
func messageResetVM(c *gin.Context, m lookup.Message, gs *lookup.GroupStates) *views.MessageResetVM {
	if !CallerRole(c).Allows(auth.Operator) || m.Message == nil {
		return nil
	}
	vm := &views.MessageResetVM{Action: "/messages/" + url.PathEscape(c.Param("id")) + "/reset", MsgID: m.MsgID(), Topic: m.Topic}
	if m.OffsetMsgID() != "" {
		vm.MsgID = m.OffsetMsgID() // names this stored copy, whatever the producer's id
	}
	if gs != nil {
		for _, g := range gs.States {
			if (g.Subscribed || g.ConsumerOffset >= 0) && MayGroup(c, g.Group, rights.Reset) {
				vm.Groups = append(vm.Groups, g.Group)
			}
		}
	}
	// Sorted, each once: a topic of 5 000 groups made a search per group quadratic.
	slices.Sort(vm.Groups)
	vm.Groups = slices.Compact(vm.Groups)
	// Thousands of groups make no list one picks from: the first ones are suggested,
	// and any is typed.
	if vm.Total = len(vm.Groups); vm.Total > paging.DefaultLimit {
		vm.Groups = vm.Groups[:paging.DefaultLimit]
	}
	return vm
}

// FromMessage is GET /messages/{id}/reset?group=&topic=&msgId=&skip=: the chosen group's
// reset preview, mode "message", as the reset form shows it.
func (h *Resets) FromMessage(c *gin.Context) {
	group := strings.TrimSpace(c.Query("group"))
	if group == "" {
		h.Fail(c, fault.InvalidField("group", "resets.input.no_group"))
		return
	}
	id := strings.TrimSpace(c.Query("msgId"))
	if id == "" {
		id = c.Param("id")
	}
	q := url.Values{"topic": {c.Query("topic")}, "mode": {string(resets.ModeMessage)}, "msgId": {id}, "preview": {"1"}}
	if formTrue(c.Query("skip")) {
		q.Set("skip", "1")
	}
	c.Redirect(http.StatusSeeOther, h.Base.URL(resetPath(group)+"?"+q.Encode()))
}
