# shellcheck shell=bash
# progress.sh - "step k/n" lines and a one-screen summary for the long commands (bin/bench, bin/test-vm,
# rdma-vm setup). Sourced, never run. Every line goes to stderr, prefixed "[NAME]"; colour only when stderr is a
# terminal (and NO_COLOR is unset).
#
#   progress_init NAME KEY          start the clock; KEY names the file of recorded step durations
#   progress_plan ID TYPICAL_S LABEL   declare the next step (its number is the order of declaration) and its
#                                   typical duration in seconds on this project's 2-core machine
#   progress_start ID               "step k/n LABEL | elapsed E | this step ~X (last run) | ~Y left"
#   progress_note TEXT              an indented line with the elapsed time; a failed step's summary names the last one
#   progress_end RC [NOTE]          "step k/n LABEL: ok in X" or "FAILED (exit RC)"; returns RC
#   progress_skip ID WHY            a planned step that does not run (WHY: cached, skipped, ...); prints nothing
#   progress_footer TEXT            a line printed under the summary (where the logs or the report are)
#   progress_finish RC              the summary: every step, its result and duration, the total; for an EXIT trap
#   progress_brief                  a summary without failures shall be one line (for a run that found all cached)
#   progress_dry_run                the plan with its expected durations, nothing run
#
# Expected durations: what each step took in the last run where it succeeded, recorded in
# ${RXEVM_HOME:-~/.cache/rdmafutures-vm}/timings/KEY (lines "ID MILLISECONDS"), else the typical value of the plan.
# A failed, skipped or cached step records nothing. The helpers keep "set -e" callers alive (they return 0 except
# progress_end, which returns its RC).

_P_NAME=; _P_KEY=; _P_T0=0; _P_CUR=; _P_NOW=0; _P_DONE=no; _P_BRIEF=no
_P_IDS=(); _P_FOOTER=()
declare -gA _P_LABEL=() _P_TYP=() _P_REC=() _P_STATUS=() _P_DUR=() _P_NOTE=() _P_START=() _P_K=()
_P_DIR=${RXEVM_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmafutures-vm}/timings
_P_B=; _P_OK=; _P_BAD=; _P_R=
if [ -t 2 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
  _P_B=$'\e[1m'; _P_OK=$'\e[32m'; _P_BAD=$'\e[1;31m'; _P_R=$'\e[0m'
fi

_progress_now() { _P_NOW=${EPOCHREALTIME//[!0-9]/}; _P_NOW=$((10#$_P_NOW / 1000)); }   # milliseconds

# _progress_fmt MS: 0.4s, 38s, 2m05s, 1h02m
_progress_fmt() {
  local ms=$1 s
  if [ "$ms" -lt 9950 ]; then s=$(((ms + 50) / 100)); printf '%d.%ds' $((s / 10)) $((s % 10)); return; fi
  s=$(((ms + 500) / 1000))
  if [ "$s" -lt 60 ]; then printf '%ds' "$s"
  elif [ "$s" -lt 3600 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60))
  else printf '%dh%02dm' $((s / 3600)) $((s % 3600 / 60)); fi
}

_progress_say() { local l="$*"; printf '[%s] %s\n' "$_P_NAME" "${l%"${l##*[! ]}"}" >&2; }

progress_init() {
  _P_NAME=$1; _P_KEY=$2
  _progress_now; _P_T0=$_P_NOW
  local id ms
  if [ -r "$_P_DIR/$_P_KEY" ]; then
    while read -r id ms; do
      [[ -n "$id" && "$ms" =~ ^[0-9]+$ ]] && _P_REC[$id]=$ms
    done < "$_P_DIR/$_P_KEY"
  fi
  return 0
}

progress_plan() {
  _P_IDS+=("$1"); _P_TYP[$1]=$(($2 * 1000)); _P_LABEL[$1]=$3; _P_STATUS[$1]=pending; _P_K[$1]=${#_P_IDS[@]}
  return 0
}

# _progress_expected ID: sets _P_EXP (ms) and _P_SRC (last run|typical)
_progress_expected() {
  if [ -n "${_P_REC[$1]:-}" ]; then _P_EXP=${_P_REC[$1]}; _P_SRC="last run"; else _P_EXP=${_P_TYP[$1]}; _P_SRC=typical; fi
}

# The expected time of every step from ID on that has not run yet (ID included).
_progress_left() {
  local id from=no sum=0
  for id in "${_P_IDS[@]}"; do
    [ "$id" = "$1" ] && from=yes
    if [ $from = yes ] && { [ "${_P_STATUS[$id]}" = pending ] || [ "$id" = "$1" ]; }; then
      _progress_expected "$id"; sum=$((sum + _P_EXP))
    fi
  done
  _P_LEFT=$sum
}

_progress_n() { printf '%s/%s' "${_P_K[$1]}" "${#_P_IDS[@]}"; }

progress_start() {
  local id=$1
  _progress_now
  _P_CUR=$id; _P_STATUS[$id]=running; _P_START[$id]=$_P_NOW; _P_NOTE[$id]=
  _progress_expected "$id"; local exp=$_P_EXP src=$_P_SRC
  _progress_left "$id"
  _progress_say "${_P_B}step $(_progress_n "$id") ${_P_LABEL[$id]}${_P_R} | elapsed $(_progress_fmt $((_P_NOW - _P_T0)))" \
    "| this step ~$(_progress_fmt "$exp") ($src) | ~$(_progress_fmt "$_P_LEFT") left"
  return 0
}

progress_note() {
  _progress_now
  [ -n "$_P_CUR" ] && _P_NOTE[$_P_CUR]="at: $*"
  _progress_say "  $* | elapsed $(_progress_fmt $((_P_NOW - _P_T0)))"
  return 0
}

progress_end() {
  local rc=$1 note=${2:-} id=$_P_CUR d
  [ -n "$id" ] || return "$rc"
  _progress_now
  d=$((_P_NOW - _P_START[$id])); _P_DUR[$id]=$d; _P_CUR=
  if [ "$rc" = 0 ]; then
    _P_STATUS[$id]=ok; _P_NOTE[$id]=$note
    _progress_say "step $(_progress_n "$id") ${_P_LABEL[$id]}: ${_P_OK}ok${_P_R} in $(_progress_fmt "$d")${note:+ ($note)}" \
      "| elapsed $(_progress_fmt $((_P_NOW - _P_T0)))"
  else
    _P_STATUS[$id]="FAILED (exit $rc)"; [ -n "$note" ] && _P_NOTE[$id]=$note
    _progress_say "step $(_progress_n "$id") ${_P_LABEL[$id]}: ${_P_BAD}FAILED${_P_R} (exit $rc) after $(_progress_fmt "$d")" \
      "| elapsed $(_progress_fmt $((_P_NOW - _P_T0)))"
  fi
  return "$rc"
}

progress_skip() { _P_STATUS[$1]=$2; return 0; }

progress_footer() { _P_FOOTER+=("$*"); return 0; }

progress_brief() { _P_BRIEF=yes; return 0; }

progress_dry_run() {
  local id total=0 w=0
  for id in "${_P_IDS[@]}"; do [ ${#_P_LABEL[$id]} -gt "$w" ] && w=${#_P_LABEL[$id]}; done
  _progress_say "plan: ${#_P_IDS[@]} steps (dry run: nothing runs)"
  for id in "${_P_IDS[@]}"; do
    _progress_expected "$id"; total=$((total + _P_EXP))
    _progress_say "$(printf '  %-5s %-*s  ~%-7s %s' "$(_progress_n "$id")" "$w" "${_P_LABEL[$id]}" "$(_progress_fmt "$_P_EXP")" "($_P_SRC)")"
  done
  _progress_say "$(printf '  %-5s %-*s  ~%s' "" "$w" "total" "$(_progress_fmt "$total")")"
  _progress_say "  expected times: the last successful run's ($_P_DIR/$_P_KEY), else typical ones"
  return 0
}

_progress_save() {
  local id tmp
  mkdir -p "$_P_DIR" 2>/dev/null || return 0
  tmp=$(mktemp "$_P_DIR/.$_P_KEY.XXXXXX" 2>/dev/null) || return 0
  for id in "${_P_IDS[@]}"; do
    if [ "${_P_STATUS[$id]}" = ok ]; then _P_REC[$id]=${_P_DUR[$id]}; fi
  done
  if for id in "${!_P_REC[@]}"; do printf '%s %s\n' "$id" "${_P_REC[$id]}"; done | sort > "$tmp" 2>/dev/null; then
    mv -f "$tmp" "$_P_DIR/$_P_KEY" 2>/dev/null
  fi
  rm -f "$tmp"
  return 0
}

# progress_finish RC: marks a step still running as failed with RC (the command exited in it), the steps not
# reached as "not run", prints the summary and records the durations of the steps that succeeded. Once only.
progress_finish() {
  local rc=$1
  set +e
  [ -n "$_P_NAME" ] && [ "$_P_DONE" = no ] && [ ${#_P_IDS[@]} -gt 0 ] || return 0
  _P_DONE=yes
  if [ -n "$_P_CUR" ]; then
    if [ "$rc" = 0 ]; then progress_end 0; else progress_end "$rc"; fi
  fi
  local id w=5 failed=no res t exp
  for id in "${_P_IDS[@]}"; do
    [ ${#_P_LABEL[$id]} -gt "$w" ] && w=${#_P_LABEL[$id]}
    [ "${_P_STATUS[$id]}" = pending ] && _P_STATUS[$id]="not run"
    [[ "${_P_STATUS[$id]}" = FAILED* ]] && failed=yes
  done
  _progress_now
  if [ "$_P_BRIEF" = yes ] && [ "$failed" = no ] && [ "$rc" = 0 ]; then
    res=
    for id in "${_P_IDS[@]}"; do
      res="$res, $id ${_P_STATUS[$id]}${_P_DUR[$id]:+ $(_progress_fmt "${_P_DUR[$id]}")}"
    done
    _progress_say "summary: ${_P_OK}ok${_P_R} in $(_progress_fmt $((_P_NOW - _P_T0))) (${res#, })"
    for t in "${_P_FOOTER[@]}"; do _progress_say "  $t"; done
    _progress_save
    return 0
  fi
  _progress_say "${_P_B}summary${_P_R}"
  _progress_say "$(printf '  %-5s %-*s  %-16s %8s  %s' step "$w" "" result time expected)"
  for id in "${_P_IDS[@]}"; do
    res=${_P_STATUS[$id]}; t=; exp=
    [ -n "${_P_DUR[$id]:-}" ] && t=$(_progress_fmt "${_P_DUR[$id]}")
    case "$res" in ok|FAILED*|"not run") _progress_expected "$id"; exp="~$(_progress_fmt "$_P_EXP")";; esac
    case "$res" in ok) res="${_P_OK}ok${_P_R}$(printf '%14s' '')";; FAILED*) res="${_P_BAD}$(printf '%-16s' "$res")${_P_R}";;
      *) res=$(printf '%-16s' "$res");; esac
    _progress_say "$(printf '  %-5s %-*s  %s %8s  %-8s %s' "$(_progress_n "$id")" "$w" "${_P_LABEL[$id]}" "$res" "$t" "$exp" \
      "${_P_NOTE[$id]:-}")"
  done
  if [ "$failed" = no ] && [ "$rc" = 0 ]; then res="${_P_OK}ok${_P_R}$(printf '%14s' '')"
  else res="${_P_BAD}$(printf '%-16s' "FAILED (exit $rc)")${_P_R}"; fi
  _progress_say "$(printf '  %-5s %-*s  %s %8s' "" "$w" total "$res" "$(_progress_fmt $((_P_NOW - _P_T0)))")"
  for t in "${_P_FOOTER[@]}"; do _progress_say "  $t"; done
  _progress_save
  return 0
}
