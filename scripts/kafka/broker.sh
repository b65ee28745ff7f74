#!/usr/bin/env bash
# A throwaway single-node Apache Kafka broker for tests (KRaft: broker and controller in one JVM).
#
#   scripts/kafka/broker.sh start    fetch the jars if needed, format storage, start, wait until ready;
#                                    prints the bootstrap address (127.0.0.1:PORT) as the last stdout line
#   scripts/kafka/broker.sh stop     stop the broker named by the state file and delete its data
#   scripts/kafka/broker.sh status   print the state and whether the broker runs (exit 1 when it does not)
#   scripts/kafka/broker.sh jars     only fetch the jars (warms the cache, e.g. on CI)
#
# The jars come from Maven Central through Maven (scripts/kafka/pom.xml, cached in ~/.m2) and are copied
# once into .kafka/libs-<checksum of pom.xml>/. Data lives in a fresh temporary directory per start.
#
# Environment:
#   KAFKA_STATE_DIR      where the state file (broker.env) and the broker log go; default .kafka/broker.
#                        One broker per state directory.
#   KAFKA_OWNER_PID      stop the broker when this process ends (a watchdog polls it every second).
#   KAFKA_START_TIMEOUT  seconds to wait for the broker to be ready; default 120.
#   KAFKA_HEAP           JVM heap options; default "-Xms128m -Xmx512m".
#
# Exit status: 0 ok; 1 failure; 3 Java or Maven is missing (the message says what to install).
# Needs Linux userland tools (setsid, flock) besides Java, Maven (first run) and Node (free ports, cluster id).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
state_dir=${KAFKA_STATE_DIR:-$root/.kafka/broker}
state_file=$state_dir/broker.env
timeout=${KAFKA_START_TIMEOUT:-120}
heap=${KAFKA_HEAP:-"-Xms128m -Xmx512m"}

say() { echo "kafka: $*" >&2; }
die() { say "$*"; exit 1; }

missing() { # missing WHAT: Java or Maven is absent; say what to install and exit 3
  local what=$1
  say "the Kafka test tier needs ${what}, which is not installed (or not on PATH)."
  case $what in
    Java*) say "install a Java 17+ runtime: Debian/Ubuntu 'apt-get install openjdk-17-jre-headless', macOS 'brew install openjdk@17'" ;;
    Maven*) say "install Apache Maven: Debian/Ubuntu 'apt-get install maven', macOS 'brew install maven'" ;;
  esac
  say "or point the tests at a running broker with KAFKA_BROKERS=host:port"
  exit 3
}

check_java() {
  command -v java >/dev/null 2>&1 || missing "Java (17 or newer)"
  local line major
  line=$(java -version 2>&1 | head -n 1)
  major=$(sed -E 's/.*version "([0-9]+)(\.([0-9]+))?.*/\1 \3/' <<<"$line")
  # "1.8.0_x" style versions report major 1; the real major is the second number.
  if [[ ${major%% *} == 1 ]]; then major=${major#* }; else major=${major%% *}; fi
  [[ $major =~ ^[0-9]+$ ]] || die "cannot read the Java version from: $line"
  ((major >= 17)) || missing "Java (17 or newer; found $line)"
}

libs_dir() {
  local sum
  sum=$(cksum <"$here/pom.xml" | cut -d ' ' -f 1)
  echo "$root/.kafka/libs-$sum"
}

ensure_jars() { # copies the broker's runtime jars into libs_dir once; safe when several starts race
  local libs
  libs=$(libs_dir)
  [[ -f $libs/.complete ]] && return 0
  command -v mvn >/dev/null 2>&1 || missing "Maven (to fetch the Kafka jars from Maven Central)"
  mkdir -p "$root/.kafka"
  exec 9>"$root/.kafka/jars.lock"
  flock 9
  if [[ ! -f $libs/.complete ]]; then
    say "fetching the Kafka broker jars with Maven (first run only; cached in ~/.m2 and $libs)"
    local tmp log
    tmp=$(mktemp -d "$root/.kafka/libs-tmp.XXXXXX")
    log=$tmp.mvn.log
    if ! mvn -B -ntp -q -f "$here/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$tmp" >"$log" 2>&1; then
      tail -n 40 "$log" >&2
      rm -rf "$tmp" "$log"
      die "Maven could not fetch the Kafka jars (output above); check network access to Maven Central"
    fi
    rm -f "$log"
    touch "$tmp/.complete"
    rm -rf "$libs"
    mv "$tmp" "$libs"
    # Jars of an earlier pom.xml are of no further use.
    find "$root/.kafka" -maxdepth 1 -type d -name 'libs-[0-9]*' ! -path "$libs" -exec rm -rf {} +
  fi
  exec 9>&-
}

free_ports() { # two free TCP ports on 127.0.0.1
  node -e '
    const net = require("node:net");
    const servers = [net.createServer(), net.createServer()];
    let open = 0;
    for (const s of servers) s.listen(0, "127.0.0.1", () => {
      if (++open < servers.length) return;
      console.log(servers.map((x) => x.address().port).join(" "));
      for (const x of servers) x.close();
    });'
}

alive() { # alive PID DATA_DIR: the pid is still our broker (not a recycled pid)
  [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null && ps -o args= -p "$1" 2>/dev/null | grep -qF -- "$2"
}

read_state() {
  [[ -f $state_file ]] || return 1
  # shellcheck disable=SC1090
  source "$state_file"
}

write_config() { # write_config DATA_DIR PORT CONTROLLER_PORT
  local data=$1 port=$2 cport=$3
  cat >"$data/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$data/logs
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
unclean.leader.election.enable=false
EOF
  cat >"$data/log4j.properties" <<EOF
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.org.apache.kafka.clients=WARN
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
EOF
}

start() {
  if read_state && alive "${KAFKA_PID:-}" "${KAFKA_DATA_DIR:-}"; then
    say "already running (pid $KAFKA_PID); state in $state_file"
    echo "$KAFKA_BROKERS"
    return 0
  fi
  check_java
  ensure_jars
  local libs data port cport cluster_id pid started
  libs=$(libs_dir)
  mkdir -p "$state_dir"
  data=$(mktemp -d "${TMPDIR:-/tmp}/pmx-kafka.XXXXXX")
  read -r port cport < <(free_ports)
  write_config "$data" "$port" "$cport"
  # A Kafka cluster id: 16 random bytes, base64url. Never one starting with "-" (1 in 64 would): the storage
  # tool would read it as an option and refuse to format (Kafka's own Uuid.randomUuid skips those too).
  cluster_id=$(node -e 'const { randomBytes } = require("node:crypto"); let id; do id = randomBytes(16).toString("base64url"); while (id.startsWith("-")); console.log(id)')
  started=$(date +%s)

  local java_opts=(-Djava.awt.headless=true "-Dlog4j.configuration=file:$data/log4j.properties")
  if ! java $heap "${java_opts[@]}" -cp "$libs/*" kafka.tools.StorageTool format \
    -t "$cluster_id" -c "$data/server.properties" >"$data/format.log" 2>&1; then
    cat "$data/format.log" >&2
    rm -rf "$data"
    die "formatting KRaft storage failed (output above)"
  fi

  # setsid: the broker must not get the terminal's signals meant for the caller (test.sh stops it itself).
  setsid nohup java $heap "${java_opts[@]}" -XX:+UseG1GC -cp "$libs/*" kafka.Kafka "$data/server.properties" \
    >"$data/broker.log" 2>&1 </dev/null &
  pid=$!
  cat >"$state_file" <<EOF
KAFKA_PID=$pid
KAFKA_BROKERS=127.0.0.1:$port
KAFKA_DATA_DIR=$data
KAFKA_LOG=$data/broker.log
EOF

  local deadline=$((started + timeout))
  until grep -q 'Kafka Server started' "$data/broker.log" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 40 "$data/broker.log" >&2
      rm -rf "$data" "$state_file"
      die "the broker exited during start-up (log above)"
    fi
    if (($(date +%s) > deadline)); then
      tail -n 40 "$data/broker.log" >&2
      stop
      die "the broker was not ready after ${timeout}s (log above)"
    fi
    sleep 0.2
  done

  if [[ -n ${KAFKA_OWNER_PID:-} ]]; then
    # Watchdog: if the owner dies without stopping us (crash, SIGKILL), stop the broker and delete its data.
    local owner=$KAFKA_OWNER_PID
    setsid nohup bash -c '
      while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done
      if kill -0 "$2" 2>/dev/null; then kill -TERM "$2"; sleep 5; kill -KILL "$2" 2>/dev/null; fi
      rm -rf "$3"' watchdog "$owner" "$pid" "$data" >/dev/null 2>&1 </dev/null &
  fi
  say "broker ready at 127.0.0.1:$port in $(($(date +%s) - started))s (pid $pid, data $data)"
  echo "127.0.0.1:$port"
}

stop() {
  if ! read_state; then
    say "no broker state in $state_file; nothing to stop"
    return 0
  fi
  if alive "${KAFKA_PID:-}" "$KAFKA_DATA_DIR"; then
    kill -TERM "$KAFKA_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do
      alive "$KAFKA_PID" "$KAFKA_DATA_DIR" || break
      sleep 0.1
    done
    if alive "$KAFKA_PID" "$KAFKA_DATA_DIR"; then
      say "broker pid $KAFKA_PID did not stop within 10s; killing it"
      kill -KILL "$KAFKA_PID" 2>/dev/null || true
    fi
  fi
  [[ $KAFKA_DATA_DIR == */pmx-kafka.* ]] && rm -rf "$KAFKA_DATA_DIR"
  rm -f "$state_file"
  say "stopped"
}

status() {
  if ! read_state; then
    echo "not running (no state in $state_file)"
    return 1
  fi
  if alive "${KAFKA_PID:-}" "$KAFKA_DATA_DIR"; then
    echo "running: KAFKA_BROKERS=$KAFKA_BROKERS pid=$KAFKA_PID data=$KAFKA_DATA_DIR log=$KAFKA_LOG"
  else
    echo "not running (stale state in $state_file: pid ${KAFKA_PID:-?})"
    return 1
  fi
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) status ;;
  jars) check_java && ensure_jars && libs_dir ;;
  *)
    echo "usage: $0 start|stop|status|jars" >&2
    exit 2
    ;;
esac
