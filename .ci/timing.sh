# shellcheck shell=bash
# Sourced by .ci/run and .ci/install.sh: step headers that also report the
# previous step's wall time and CPU time. CPU time is what fits a budget on
# a loaded or small machine (2 cores give 2,400 CPU-s in 20 minutes), where
# wall time depends on who else is running.

# _ci_cpu_ticks prints the CPU time (user+system, in clock ticks) of this
# shell's finished children: every command a step ran and waited for.
_ci_cpu_ticks() {
  local s f
  if s=$(cat "/proc/$$/stat" 2>/dev/null); then
    read -r -a f <<<"${s##*) }"
    echo $((f[13] + f[14]))
  else
    echo 0
  fi
}
_ci_hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
_ci_step=""
_ci_summary=()
_ci_run_started=$SECONDS
_ci_run_cpu=$(_ci_cpu_ticks)

# _ci_cpu_s formats ticks as seconds.
_ci_cpu_s() { printf '%d.%02d' $(($1 / _ci_hz)) $(($1 % _ci_hz * 100 / _ci_hz)); }

# step_done reports the step that is running, if any.
step_done() {
  [ -n "$_ci_step" ] || return 0
  local wall=$((SECONDS - _ci_step_started)) cpu=$(($(_ci_cpu_ticks) - _ci_step_cpu))
  printf '    [%s: %d s wall, %s s CPU]\n' "$_ci_step" "$wall" "$(_ci_cpu_s "$cpu")"
  _ci_summary+=("$(printf '%6d s %9s s  %s' "$wall" "$(_ci_cpu_s "$cpu")" "$_ci_step")")
  _ci_step=""
}

# step ends the running step and starts the next.
step() {
  step_done
  _ci_step=$*
  _ci_step_started=$SECONDS
  _ci_step_cpu=$(_ci_cpu_ticks)
  printf '\n==> %s\n' "$*"
}

# step_summary ends the running step and prints every step's times and the total.
step_summary() {
  step_done
  printf '\n  wall    CPU       step\n'
  printf '%s\n' "${_ci_summary[@]}"
  printf '%6d s %9s s  total\n' $((SECONDS - _ci_run_started)) "$(_ci_cpu_s $(($(_ci_cpu_ticks) - _ci_run_cpu)))"
}
