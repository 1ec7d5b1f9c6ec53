package views

// Names a page shows as they are in every language: command lines, settings and
// RocketMQ's own field names.
const (
	cmdNamesrv       = "--namesrv host:9876"
	envNamesrv       = "RMQC_NAMESRV"
	cmdMakeRun       = "make run"
	cmdUpdateTopic   = "mqadmin updateTopic"
	cfgAutoCreate    = "autoCreateTopicEnable"
	fieldOffsetMsgID = "offsetMsgId"
	fieldOriginMsgID = "offsetMsgId (ORIGIN_MESSAGE_ID)"
)
