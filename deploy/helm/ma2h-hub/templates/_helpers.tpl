{{/*
The chart's shared pieces. Every template keeps to the subset documented in docs/DEPLOYMENT.md
("Kubernetes"): .Values/.Release/.Chart lookups, if/else, range, with, include of these defines,
default, quote, and toYaml | nindent N. test/support/helm-subset.ts renders exactly that subset.
*/}}

{{- define "ma2h-hub.fullname" -}}
{{ .Release.Name }}-{{ .Chart.Name }}
{{- end -}}

{{- define "ma2h-hub.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ma2h-hub.labels" -}}
{{ include "ma2h-hub.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "ma2h-hub.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "ma2h-hub.secretName" -}}
{{- if .Values.secret.existingSecret -}}
{{ .Values.secret.existingSecret }}
{{- else -}}
{{ include "ma2h-hub.fullname" . }}-env
{{- end -}}
{{- end -}}

{{/* The container's environment: the ConfigMap of `config` and the Secret. */}}
{{- define "ma2h-hub.envFrom" -}}
- configMapRef:
    name: {{ include "ma2h-hub.fullname" . }}-config
- secretRef:
    name: {{ include "ma2h-hub.secretName" . }}
{{- end -}}

{{/* The pod-level settings every pod of the chart shares. */}}
{{- define "ma2h-hub.podSpec" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
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
{{- end -}}
