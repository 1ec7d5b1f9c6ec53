{{/* The chart's name, cut to the 63 characters a label value may have. */}}
{{- define "rmqconsole.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The objects' name: the release's, with the chart's unless the release already says it. */}}
{{- define "rmqconsole.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "rmqconsole.selectorLabels" -}}
app.kubernetes.io/name: {{ include "rmqconsole.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "rmqconsole.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "rmqconsole.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "rmqconsole.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "rmqconsole.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* "true" when the console keeps its state in SQLite (no PostgreSQL URL). */}}
{{- define "rmqconsole.sqlite" -}}
{{- if not .Values.database.url.existingSecret }}true{{ end }}
{{- end }}

{{/* "true" when the data volume is a PersistentVolumeClaim: one console on SQLite. */}}
{{- define "rmqconsole.pvc" -}}
{{- if and (include "rmqconsole.sqlite" .) .Values.persistence.enabled }}true{{ end }}
{{- end }}

{{- define "rmqconsole.scheme" -}}
{{- if .Values.tls.existingSecret }}HTTPS{{ else }}HTTP{{ end }}
{{- end }}

{{/* The clusters file's Secret: the one named, or the chart's own holding clusters.config. */}}
{{- define "rmqconsole.clustersSecret" -}}
{{- if .Values.clusters.existingSecret }}{{ .Values.clusters.existingSecret }}{{ else }}{{ include "rmqconsole.fullname" . }}-clusters{{ end }}
{{- end }}

{{/*
Settings the console would refuse at start, refused here instead with the same advice,
so a mistake shows at install rather than as a pod that crashes.
*/}}
{{- define "rmqconsole.validate" -}}
{{- $clusters := or .Values.clusters.config .Values.clusters.existingSecret }}
{{- if and .Values.clusters.config .Values.clusters.existingSecret }}
{{- fail "clusters: give the file either as clusters.config or in clusters.existingSecret, not both" }}
{{- end }}
{{- if and $clusters (or .Values.rocketmq.namesrv .Values.rocketmq.proxy .Values.rocketmq.accessKey .Values.rocketmq.secretKey.existingSecret) }}
{{- fail "clusters: with a clusters file, leave rocketmq.namesrv, proxy, accessKey and secretKey empty: each cluster of the file names its own" }}
{{- end }}
{{- if not (or $clusters .Values.rocketmq.namesrv) }}
{{- fail "rocketmq.namesrv: set the NameServers of the RocketMQ cluster to manage (\"host:9876;host2:9876\"), or several clusters in clusters.config" }}
{{- end }}
{{- if not (regexMatch "\\.(ya?ml|toml)$" .Values.clusters.key) }}
{{- fail "clusters.key: end it in .yaml, .yml or .toml: the console reads the file's format from its name" }}
{{- end }}
{{- if and (gt (int .Values.replicaCount) 1) (include "rmqconsole.sqlite" .) }}
{{- fail "replicaCount: several consoles must share a PostgreSQL database (database.url.existingSecret): SQLite is one console's file" }}
{{- end }}
{{- if and .Values.auth.admin.name (not .Values.auth.admin.existingSecret) }}
{{- fail "auth.admin.existingSecret: name the Secret holding the admin's password" }}
{{- end }}
{{- if and .Values.auth.admin.existingSecret (not .Values.auth.admin.name) }}
{{- fail "auth.admin.name: name the admin user whose password auth.admin.existingSecret holds" }}
{{- end }}
{{- if not (or .Values.auth.admin.name .Values.auth.trustedProxies .Values.auth.noAuth) }}
{{- fail "auth: the console refuses to serve its port without a way to sign in: set auth.admin (a user created at start), auth.trustedProxies (a proxy naming users), or auth.noAuth=true (no sign-in at all)" }}
{{- end }}
{{- if and .Values.metrics.serviceMonitor.enabled (not (or .Values.metrics.serviceMonitor.bearerTokenSecret.name .Values.auth.noAuth)) }}
{{- fail "metrics.serviceMonitor.bearerTokenSecret.name: /metrics needs a signed-in viewer: put a viewer's API token (rmqconsole tokens create --user NAME) in a Secret and name it here" }}
{{- end }}
{{- $owned := dict "RMQC_LISTEN" "service.port" "RMQC_DATA_DIR" "persistence" "RMQC_DB" "database.url" "RMQC_CONFIG" "clusters" "RMQC_NAMESRV" "rocketmq.namesrv" "RMQC_PROXY" "rocketmq.proxy" "RMQC_ACCESS_KEY" "rocketmq.accessKey" "RMQC_SECRET_KEY" "rocketmq.secretKey" "RMQC_SECRET_KEY_FILE" "rocketmq.secretKey" "RMQC_TIMEOUT" "rocketmq.timeout" "RMQC_TLS_CERT" "tls.existingSecret" "RMQC_TLS_KEY" "tls.existingSecret" "RMQC_NO_AUTH" "auth.noAuth" "RMQC_TRUSTED_PROXIES" "auth.trustedProxies" "RMQC_PROXY_USER_HEADER" "auth.userHeader" "RMQC_PROXY_ROLE_HEADER" "auth.roleHeader" "RMQC_SESSION_IDLE" "auth.sessionIdle" "RMQC_SESSION_MAX" "auth.sessionMax" "RMQC_LOG_LEVEL" "log.level" "RMQC_LOG_FORMAT" "log.format" "RMQC_METRICS_INTERVAL" "metrics.interval" "RMQC_METRICS_QUEUES" "metrics.queues" "RMQC_METRICS_GROUPS" "metrics.groups" }}
{{- range $k, $v := .Values.env }}
{{- if not (hasPrefix "RMQC_" $k) }}
{{- fail (printf "env.%s: only the console's RMQC_ settings go here" $k) }}
{{- end }}
{{- if hasKey $owned $k }}
{{- fail (printf "env.%s: set it with %s instead" $k (get $owned $k)) }}
{{- end }}
{{- end }}
{{- end }}

{{- define "rmqconsole.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The console's settings, shared by the console and the container that adds the admin. */}}
{{- define "rmqconsole.env" -}}
- name: RMQC_LISTEN
  value: ":{{ .Values.service.port }}"
- name: RMQC_DATA_DIR
  value: /data
{{- with .Values.database.url.existingSecret }}
- name: RMQC_DB
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.database.url.key }}
{{- end }}
{{- if or .Values.clusters.config .Values.clusters.existingSecret }}
- name: RMQC_CONFIG
  value: /etc/rmqconsole/clusters/{{ .Values.clusters.key }}
{{- end }}
{{- with .Values.rocketmq.namesrv }}
- name: RMQC_NAMESRV
  value: {{ . | quote }}
{{- end }}
{{- with .Values.rocketmq.proxy }}
- name: RMQC_PROXY
  value: {{ . | quote }}
{{- end }}
{{- with .Values.rocketmq.accessKey }}
- name: RMQC_ACCESS_KEY
  value: {{ . | quote }}
{{- end }}
{{- if .Values.rocketmq.secretKey.existingSecret }}
- name: RMQC_SECRET_KEY_FILE
  value: /etc/rmqconsole/rocketmq/{{ .Values.rocketmq.secretKey.key }}
{{- end }}
{{- with .Values.rocketmq.timeout }}
- name: RMQC_TIMEOUT
  value: {{ . | quote }}
{{- end }}
{{- if .Values.tls.existingSecret }}
- name: RMQC_TLS_CERT
  value: /etc/rmqconsole/tls/tls.crt
- name: RMQC_TLS_KEY
  value: /etc/rmqconsole/tls/tls.key
{{- end }}
{{- if .Values.auth.noAuth }}
- name: RMQC_NO_AUTH
  value: "true"
{{- end }}
{{- $hosts := list }}
{{- if .Values.ingress.enabled }}
{{- range .Values.ingress.hosts }}{{ $hosts = append $hosts .host }}{{ end }}
{{- end }}
{{- with (concat $hosts .Values.auth.allowedHosts | uniq) }}
- name: RMQC_ALLOWED_HOSTS
  value: {{ join "," . | quote }}
{{- end }}
{{- with .Values.auth.trustedProxies }}
- name: RMQC_TRUSTED_PROXIES
  value: {{ join "," . | quote }}
{{- end }}
{{- with .Values.auth.userHeader }}
- name: RMQC_PROXY_USER_HEADER
  value: {{ . | quote }}
{{- end }}
{{- with .Values.auth.roleHeader }}
- name: RMQC_PROXY_ROLE_HEADER
  value: {{ . | quote }}
{{- end }}
{{- with .Values.auth.sessionIdle }}
- name: RMQC_SESSION_IDLE
  value: {{ . | quote }}
{{- end }}
{{- with .Values.auth.sessionMax }}
- name: RMQC_SESSION_MAX
  value: {{ . | quote }}
{{- end }}
- name: RMQC_LOG_LEVEL
  value: {{ .Values.log.level | quote }}
- name: RMQC_LOG_FORMAT
  value: {{ .Values.log.format | quote }}
{{- with .Values.metrics.interval }}
- name: RMQC_METRICS_INTERVAL
  value: {{ . | quote }}
{{- end }}
{{- if not .Values.metrics.queues }}
- name: RMQC_METRICS_QUEUES
  value: "false"
{{- end }}
{{- with .Values.metrics.groups }}
- name: RMQC_METRICS_GROUPS
  value: {{ . | quote }}
{{- end }}
{{- range $k, $v := .Values.env }}
- name: {{ $k }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end }}

{{/* Where the console's files are mounted, shared as the settings are. */}}
{{- define "rmqconsole.volumeMounts" -}}
- name: data
  mountPath: /data
- name: tmp
  mountPath: /tmp
{{- if or .Values.clusters.config .Values.clusters.existingSecret }}
- name: clusters
  mountPath: /etc/rmqconsole/clusters
  readOnly: true
{{- end }}
{{- range $i, $name := .Values.clusters.credentialSecrets }}
- name: credentials-{{ $i }}
  mountPath: /etc/rmqconsole/credentials/{{ $name }}
  readOnly: true
{{- end }}
{{- if .Values.rocketmq.secretKey.existingSecret }}
- name: rocketmq-secret-key
  mountPath: /etc/rmqconsole/rocketmq
  readOnly: true
{{- end }}
{{- if .Values.tls.existingSecret }}
- name: tls
  mountPath: /etc/rmqconsole/tls
  readOnly: true
{{- end }}
{{- end }}
