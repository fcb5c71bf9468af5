#!/bin/bash
# The VM part of bin/faults (bin/faults --vm; issue 15 on verbs and between two VMs): builds, then runs
#  1. the peer process killed (SIGKILL) with 1,000 READs in flight on verbs, over rxe0 and over siw0 (the JUnit
#     classes VerbsKilledPeerOnRxeVmTest and VerbsKilledPeerOnSiwVmTest, a VM each);
#  2. link cuts without a reset between two VMs, soft and verbs over rxe0, also under the KV service at full load
#     (pair-faults.sh);
#  3. the soak on verbs over rxe0 and over siw0 (VerbsSoakOnRxeVmTest, VerbsSoakOnSiwVmTest: 64 connections, 60 s);
#  4. the hostile peer guessing tokens (samples' TokenGuessing) on verbs over rxe0 and over siw0, a VM each;
# and writes their FAULT-ROW lines as docs/reliability/<date>-vm.md, headed by the machine and the VM's kernel and
# devices. Exit 0 when every fault test held; the report is written either way, with what failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RXEVM_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmafutures-vm}/runs
T=testcontainers-rxe/target
bin/prerequisites && testcontainers-rxe/vm/rdma-vm setup || exit 1
S=samples/target
mvn -B -q install -DskipTests &&
  mvn -B -q -pl testcontainers-rxe dependency:build-classpath -Dmdep.outputFile="$PWD/$T/vm-test.classpath" &&
  mvn -B -q -pl samples dependency:build-classpath -Dmdep.outputFile="$PWD/$S/vm.classpath" || exit 1
MARK=$(mktemp)
trap 'rm -f "$MARK"' EXIT
mvn -B -q -pl testcontainers-rxe test -Drdmafutures.excludedGroups=none -Dgroups=vm \
    -Dtest='VerbsKilledPeerOn*VmTest,VerbsSoakOn*VmTest' -Dsurefire.failIfNoSpecifiedTests=false
junit=$?
junit_rows=$(find "$RUNS" -mindepth 2 -maxdepth 2 -name out.log -newer "$MARK" -exec grep -ah '^FAULT-ROW ' {} + | sort)
pair_out=$(testcontainers-rxe/vm/pair-faults.sh "$PWD/$T/test-classes:$PWD/$T/classes:$(cat $T/vm-test.classpath)" \
  "$PWD/$S/test-classes:$PWD/$S/classes:$(cat $S/vm.classpath)")
pair=$?
echo "$pair_out"
FLAGS="--add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED -Djava.library.path=$PWD/verbs/target/native"
guess=0
guess_out=""
# A JVM that multi-threaded TCG crashed (SIGSEGV or SIGILL in freshly compiled code, about one JVM run in ten here:
# see bench-vm.sh's java_run) is run again, up to three times; any other failure is not.
for dev in rxe siw; do
  for attempt in 1 2 3; do
    rc=0
    one=$(RXEVM_QUIET=1 RXEVM_DEV=$dev testcontainers-rxe/vm/rdma-vm run "java -cp $PWD/$S/classes:$(cat $S/vm.classpath) \
      $FLAGS -Dprovider=verbs -Ddevice=${dev}0 -Daddress=10.0.2.15 dev.rdmafutures.samples.TokenGuessing 10 1000 \
      /tmp/token-guessing.log" 2>&1) || rc=$?
    echo "$one"
    if [ $rc != 0 ] && [ $attempt -lt 3 ] && echo "$one" | grep -q 'A fatal error has been detected'; then
      echo "faults-vm: TokenGuessing on ${dev}0: the JVM crashed (TCG); running it again (attempt $attempt of 3)" >&2
      continue
    fi
    [ $rc = 0 ] || guess=1
    break
  done
  guess_out+=$(echo "$one" | grep -a -E '^(token guessing|without|with |the standard)')$'\n'
done
vm=$(echo "$pair_out" | sed -n 's/.*VM-INFO //p' | head -1)
out="docs/reliability/$(date -u +%F)-vm.md"
mkdir -p docs/reliability
{
  echo "# Faults on verbs and between two VMs, $(date -u +%F)"
  echo
  echo "Host $(uname -n) ($(nproc) cores, $(java -version 2>&1 | head -1)); QEMU VMs under TCG emulation. The"
  echo "killed-peer rows ran in one VM (1 vCPU) with rxe0 or siw0 on its eth0; the link-cut rows in two VMs (1 vCPU"
  echo "each) joined by one link, rxe0 on each eth0; host A reported: ${vm:-nothing}."
  echo
  echo "Written by \`bin/faults --vm\` (testcontainers-rxe/vm/faults-vm.sh); every row is one test that passed. In"
  echo "flight: operations posted and not done when the fault struck. No future was left pending: each test waits"
  echo "for every one of them. A link cut here is silent: host A drops everything it sends (netem loss 100%) and"
  echo "everything it receives (a tc ingress filter), so no RST, DREQ or port event tells anyone."
  echo
  echo "| fault | provider | in flight | futures ended | detected | went on serving | verified |"
  echo "|---|---|---|---|---|---|---|"
  echo "$junit_rows" | sed 's/^FAULT-ROW //' | grep .
  echo "$pair_out" | sed -n 's/.*FAULT-ROW //p'
  echo
  echo "verbs derives each QP's ACK timeout and retry count from \`livenessTimeout\` (RetryBudget: the longest"
  echo "(retries + 1) x 4.096 us x 2^timeout not above it, at most 6 retries). The QPs of host A reported"
  echo "(ibv_query_qp), with the number of connections that had each: the 4 s cases' budget first, then the 2 s"
  echo "cases' (the lasting cut and the new connection after it). rxe arms its retransmit timer when it sends, not"
  echo "when an ACK arrives, so a cut can be detected up to about one ACK timeout before the whole budget."
  echo
  echo "$pair_out" | sed -n 's/^rxe0 QP retry budget (connections): */- /p'
  echo
  echo "## A hostile peer guessing tokens on verbs (10 s a run; samples: TokenGuessing)"
  echo
  echo "As bin/faults' soft section, on verbs in one VM each: the attacker is given every region's address and guesses"
  echo "rkeys at random. On rxe0 the server counts each refused guess against the attacker's address (rxe leaves the"
  echo "refusing side's QP in the error state, which the connection reads at the peer's disconnect), so the standard"
  echo "policy holds it off as on soft; siw tells its host nothing that tells, so there the policy's run is the"
  echo "undefended one again. A protection domain per connection holds by construction on both. Under TCG emulation"
  echo "the rates are the emulator's, not a device's."
  echo
  echo '```'
  printf '%s' "$guess_out"
  echo '```'
  if [ "$junit" != 0 ] || [ "$pair" != 0 ] || [ "$guess" != 0 ]; then
    echo
    echo "FAILED: JUnit in VM exit $junit, pair exit $pair, token guessing exit $guess:"
    echo "$pair_out" | grep -a -E 'BROKEN|Exception' | sed 's/^/    /'
  fi
} > "$out"
cat "$out"
echo "faults-vm: wrote $out (JUnit exit $junit, pair exit $pair, token guessing exit $guess)"
[ "$junit" = 0 ] && [ "$pair" = 0 ] && [ "$guess" = 0 ]
