{{/* The chart's name, at most 63 characters. */}}
{{- define "reclaim.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: the objects' names. */}}
{{- define "reclaim.fullname" -}}
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

{{- define "reclaim.selectorLabels" -}}
app.kubernetes.io/name: {{ include "reclaim.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "reclaim.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "reclaim.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "reclaim.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{- define "reclaim.secretName" -}}
{{- .Values.secrets.name | default (include "reclaim.fullname" .) }}
{{- end }}

{{/*
An environment variable's value from values: a whole number as one (YAML
numbers arrive as float64, which would print 1e+12), anything else as text.
*/}}
{{- define "reclaim.envValue" -}}
{{- if and (kindIs "float64" .) (eq . (floor .)) }}
{{- . | int64 }}
{{- else }}
{{- . }}
{{- end }}
{{- end }}

{{/*
The service's configuration, the same in the instances and the migration
Job: the settings from secrets.keys by reference to the Secret, then config.
*/}}
{{- define "reclaim.env" -}}
{{- $secret := include "reclaim.secretName" . }}
{{- range $name, $key := .Values.secrets.keys }}
{{- if $key }}
{{- if and (hasKey $.Values.config $name) (ne (toString (index $.Values.config $name)) "") (ne (toString (index $.Values.config $name)) "<nil>") }}
{{- fail (printf "%s is set both in config and in secrets.keys: keep one (secrets.keys when it carries a credential)" $name) }}
{{- end }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key | quote }}
{{- end }}
{{- end }}
{{- range $name, $value := .Values.config }}
{{- if and (not (kindIs "invalid" $value)) (ne (toString $value) "") }}
- name: {{ $name }}
  value: {{ include "reclaim.envValue" $value | quote }}
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The pod's security context: the image's unprivileged user. */}}
{{- define "reclaim.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* Each container's: no root, no privilege, nothing written outside /tmp. */}}
{{- define "reclaim.securityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop: ["ALL"]
{{- end }}

{{- define "reclaim.podCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.serviceAccountName }}
serviceAccountName: {{ . }}
{{- end }}
automountServiceAccountToken: false
enableServiceLinks: false
securityContext:
  {{- include "reclaim.podSecurityContext" . | nindent 2 }}
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
