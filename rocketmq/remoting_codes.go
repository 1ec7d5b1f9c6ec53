package rocketmq

import "strconv"

// RequestCode is the code of a remoting request (RocketMQ's RequestCode).
// The numbers are the same in 4.9.x and 5.x.
type RequestCode int

// Request codes this package sends (and the broker→client codes it may see).
const (
	CodePullMessage                RequestCode = 11
	CodeQueryMessage               RequestCode = 12
	CodeQueryConsumerOffset        RequestCode = 14
	CodeUpdateConsumerOffset       RequestCode = 15
	CodeGetAllTopicConfig          RequestCode = 21
	CodeUpdateBrokerConfig         RequestCode = 25
	CodeGetBrokerConfig            RequestCode = 26
	CodeGetAllConsumerOffset       RequestCode = 43
	CodeGetBrokerRuntimeInfo       RequestCode = 28
	CodeSearchOffsetByTimestamp    RequestCode = 29
	CodeGetMaxOffset               RequestCode = 30
	CodeGetMinOffset               RequestCode = 31
	CodeGetEarliestMsgStoreTime    RequestCode = 32
	CodeViewMessageByID            RequestCode = 33
	CodeHeartBeat                  RequestCode = 34
	CodeGetConsumerListByGroup     RequestCode = 38
	CodeNotifyConsumerIDsChanged   RequestCode = 40
	CodeGetRouteInfoByTopic        RequestCode = 105
	CodeGetBrokerClusterInfo       RequestCode = 106
	CodeGetBrokerClusterACLConfig  RequestCode = 54
	CodeUpdateSubscriptionGroup    RequestCode = 200
	CodeDeleteSubscriptionGroup    RequestCode = 207
	CodeGetAllSubscriptionGroup    RequestCode = 201
	CodeGetTopicStatsInfo          RequestCode = 202
	CodeGetConsumerConnectionList  RequestCode = 203
	CodeGetProducerConnectionList  RequestCode = 204
	CodeGetAllTopicListFromNameSrv RequestCode = 206
	CodeGetConsumeStats            RequestCode = 208
	CodeResetConsumerClientOffset  RequestCode = 220
	CodeInvokeBrokerToResetOffset  RequestCode = 222
	CodeQueryTopicConsumeByWho     RequestCode = 300
	CodeQueryConsumeTimeSpan       RequestCode = 303
	CodeGetConsumerRunningInfo     RequestCode = 307
	CodeConsumeMessageDirectly     RequestCode = 309
	CodeGetAllProducerInfo         RequestCode = 328
	CodeUpdateAndCreateTopic       RequestCode = 17
	CodeDeleteTopicInBroker        RequestCode = 215
	CodeDeleteTopicInNameSrv       RequestCode = 216
	CodeQueryConsumeQueue          RequestCode = 321
	CodeGetBrokerConsumeStats      RequestCode = 317
	CodeSendMessageV2              RequestCode = 310
	CodePollingInfo                RequestCode = 200055
	CodeGetBrokerHAStatus          RequestCode = 907
	// ACL 2.0 users and policies (5.3.0+).
	CodeAuthCreateUser RequestCode = 3001
	CodeAuthUpdateUser RequestCode = 3002
	CodeAuthDeleteUser RequestCode = 3003
	CodeAuthGetUser    RequestCode = 3004
	CodeAuthListUser   RequestCode = 3005
	CodeAuthCreateACL  RequestCode = 3006
	CodeAuthUpdateACL  RequestCode = 3007
	CodeAuthDeleteACL  RequestCode = 3008
	CodeAuthGetACL     RequestCode = 3009
	CodeAuthListACL    RequestCode = 3010
)

var requestCodeNames = map[RequestCode]string{
	CodePullMessage:                "PULL_MESSAGE",
	CodePollingInfo:                "POLLING_INFO",
	CodeQueryMessage:               "QUERY_MESSAGE",
	CodeQueryConsumerOffset:        "QUERY_CONSUMER_OFFSET",
	CodeUpdateConsumerOffset:       "UPDATE_CONSUMER_OFFSET",
	CodeGetAllTopicConfig:          "GET_ALL_TOPIC_CONFIG",
	CodeUpdateBrokerConfig:         "UPDATE_BROKER_CONFIG",
	CodeGetBrokerConfig:            "GET_BROKER_CONFIG",
	CodeGetBrokerClusterACLConfig:  "GET_BROKER_CLUSTER_ACL_CONFIG",
	CodeDeleteSubscriptionGroup:    "DELETE_SUBSCRIPTIONGROUP",
	CodeAuthCreateUser:             "AUTH_CREATE_USER",
	CodeAuthUpdateUser:             "AUTH_UPDATE_USER",
	CodeAuthDeleteUser:             "AUTH_DELETE_USER",
	CodeAuthGetUser:                "AUTH_GET_USER",
	CodeAuthListUser:               "AUTH_LIST_USER",
	CodeAuthCreateACL:              "AUTH_CREATE_ACL",
	CodeAuthUpdateACL:              "AUTH_UPDATE_ACL",
	CodeAuthDeleteACL:              "AUTH_DELETE_ACL",
	CodeAuthGetACL:                 "AUTH_GET_ACL",
	CodeAuthListACL:                "AUTH_LIST_ACL",
	CodeGetAllConsumerOffset:       "GET_ALL_CONSUMER_OFFSET",
	CodeGetBrokerRuntimeInfo:       "GET_BROKER_RUNTIME_INFO",
	CodeGetBrokerHAStatus:          "GET_BROKER_HA_STATUS",
	CodeSearchOffsetByTimestamp:    "SEARCH_OFFSET_BY_TIMESTAMP",
	CodeGetMaxOffset:               "GET_MAX_OFFSET",
	CodeGetMinOffset:               "GET_MIN_OFFSET",
	CodeGetEarliestMsgStoreTime:    "GET_EARLIEST_MSG_STORETIME",
	CodeViewMessageByID:            "VIEW_MESSAGE_BY_ID",
	CodeQueryConsumeQueue:          "QUERY_CONSUME_QUEUE",
	CodeHeartBeat:                  "HEART_BEAT",
	CodeGetConsumerListByGroup:     "GET_CONSUMER_LIST_BY_GROUP",
	CodeNotifyConsumerIDsChanged:   "NOTIFY_CONSUMER_IDS_CHANGED",
	CodeGetRouteInfoByTopic:        "GET_ROUTEINFO_BY_TOPIC",
	CodeGetBrokerClusterInfo:       "GET_BROKER_CLUSTER_INFO",
	CodeUpdateSubscriptionGroup:    "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP",
	CodeGetAllSubscriptionGroup:    "GET_ALL_SUBSCRIPTIONGROUP_CONFIG",
	CodeGetTopicStatsInfo:          "GET_TOPIC_STATS_INFO",
	CodeGetConsumerConnectionList:  "GET_CONSUMER_CONNECTION_LIST",
	CodeGetProducerConnectionList:  "GET_PRODUCER_CONNECTION_LIST",
	CodeGetAllTopicListFromNameSrv: "GET_ALL_TOPIC_LIST_FROM_NAMESERVER",
	CodeGetConsumeStats:            "GET_CONSUME_STATS",
	CodeResetConsumerClientOffset:  "RESET_CONSUMER_CLIENT_OFFSET",
	CodeInvokeBrokerToResetOffset:  "INVOKE_BROKER_TO_RESET_OFFSET",
	CodeQueryTopicConsumeByWho:     "QUERY_TOPIC_CONSUME_BY_WHO",
	CodeQueryConsumeTimeSpan:       "QUERY_CONSUME_TIME_SPAN",
	CodeGetConsumerRunningInfo:     "GET_CONSUMER_RUNNING_INFO",
	CodeConsumeMessageDirectly:     "CONSUME_MESSAGE_DIRECTLY",
	CodeGetAllProducerInfo:         "GET_ALL_PRODUCER_INFO",
	CodeUpdateAndCreateTopic:       "UPDATE_AND_CREATE_TOPIC",
	CodeDeleteTopicInBroker:        "DELETE_TOPIC_IN_BROKER",
	CodeDeleteTopicInNameSrv:       "DELETE_TOPIC_IN_NAMESRV",
	CodeGetBrokerConsumeStats:      "GET_BROKER_CONSUME_STATS",
	CodeSendMessageV2:              "SEND_MESSAGE_V2",
}

// String returns RocketMQ's name for the code, or the number when unknown.
func (c RequestCode) String() string {
	if n, ok := requestCodeNames[c]; ok {
		return n
	}
	return strconv.Itoa(int(c))
}

// ResponseCode is the code of a remoting response (RocketMQ's ResponseCode).
type ResponseCode int

// Response codes an admin client meets.
const (
	CodeSuccess                   ResponseCode = 0
	CodeSystemError               ResponseCode = 1
	CodeSystemBusy                ResponseCode = 2
	CodeRequestCodeNotSupported   ResponseCode = 3
	CodeNoPermission              ResponseCode = 16
	CodeTopicNotExist             ResponseCode = 17
	CodePullNotFound              ResponseCode = 19
	CodePullRetryImmediately      ResponseCode = 20
	CodePullOffsetMoved           ResponseCode = 21
	CodeQueryNotFound             ResponseCode = 22
	CodeSubscriptionParseFailed   ResponseCode = 23
	CodeSubscriptionNotExist      ResponseCode = 24
	CodeSubscriptionGroupNotExist ResponseCode = 26
	CodeInvalidParameter          ResponseCode = 29
	CodeConsumerNotOnline         ResponseCode = 206
	CodeConsumeMsgTimeout         ResponseCode = 207
	CodeNoMessage                 ResponseCode = 208
	CodeNotLeaderForQueue         ResponseCode = 501
	CodeGoAway                    ResponseCode = 1500
)

var responseCodeNames = map[ResponseCode]string{
	CodeSuccess:                   "SUCCESS",
	CodeSystemError:               "SYSTEM_ERROR",
	CodeSystemBusy:                "SYSTEM_BUSY",
	CodeRequestCodeNotSupported:   "REQUEST_CODE_NOT_SUPPORTED",
	CodeNoPermission:              "NO_PERMISSION",
	CodeTopicNotExist:             "TOPIC_NOT_EXIST",
	CodePullNotFound:              "PULL_NOT_FOUND",
	CodePullRetryImmediately:      "PULL_RETRY_IMMEDIATELY",
	CodePullOffsetMoved:           "PULL_OFFSET_MOVED",
	CodeQueryNotFound:             "QUERY_NOT_FOUND",
	CodeSubscriptionParseFailed:   "SUBSCRIPTION_PARSE_FAILED",
	CodeSubscriptionNotExist:      "SUBSCRIPTION_NOT_EXIST",
	CodeSubscriptionGroupNotExist: "SUBSCRIPTION_GROUP_NOT_EXIST",
	CodeInvalidParameter:          "INVALID_PARAMETER",
	CodeConsumerNotOnline:         "CONSUMER_NOT_ONLINE",
	CodeConsumeMsgTimeout:         "CONSUME_MSG_TIMEOUT",
	CodeNoMessage:                 "NO_MESSAGE",
	CodeNotLeaderForQueue:         "NOT_LEADER_FOR_QUEUE",
	CodeGoAway:                    "GO_AWAY",
}

// String returns RocketMQ's name for the code, or the number when unknown.
func (c ResponseCode) String() string {
	if n, ok := responseCodeNames[c]; ok {
		return n
	}
	return strconv.Itoa(int(c))
}
