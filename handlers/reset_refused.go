package handlers

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/resets"
)

// ResetAsked reads what a reset request asks for, for the audit entry of an apply that
// access control refused before its handler ran: the form or the API body, read by the
// handlers' own parsers (with their limits). Nothing in it is checked; the resets
// service bounds what it stores.
func ResetAsked(c *gin.Context) resets.Asked {
	var in resetInput
	if isAPI(c) {
		in, _ = resetAPIInput(c)
	} else {
		in = resetFormInput(c)
	}
	return in.asked()
}

// asked is the input as the audit entry of a refused apply records it.
func (in resetInput) asked() resets.Asked {
	return resets.Asked{Topic: in.Topic, Mode: in.Mode, Reason: in.Reason, Params: map[string]string{
		"timestamp": in.Timestamp, "timeZone": in.TimeZone, "brokerName": in.BrokerName, "queueId": in.QueueID,
		"offset": in.Offset, "shift": in.Shift, "auditId": in.AuditID, "fromGroup": in.FromGroup, "msgId": in.MsgID, "skip": skipValue(in.Skip), "planId": in.PlanID,
	}}
}
