#!/usr/bin/env bash
# Mutation testing of the critical spots with mutmut 3 (https://github.com/boxed/mutmut).
#
# mutmut puts one small deliberate bug (a mutant) at a time into the code and runs the tests that cover
# it; a mutant no test notices ("survived") is a behaviour change the suite would let ship. The kill
# rate is killed / (killed + survived) and is quoted in issues and release notes.
#
#   benchmarks/mutation.sh                  # every scope below (slow: hours on 2 cores)
#   benchmarks/mutation.sh migrate          # one or more scopes: _retry _base _transport batch tokens migrate
#                                           #   router router_logic router_front ratelimit batch_send
#                                           #   send (= send_core + send_rest) pricing
#   python benchmarks/lua_mutants.py        # the Lua script of ratelimit/_script.py (a string mutmut skips)
#   JOBS=2 benchmarks/mutation.sh _retry    # worker processes (default: 1, the machine is shared)
#   MARK='' ...                            # also the tests marked slow (skipped by default: see below)
#   KEEP=1 ...                              # keep the scratch copy to inspect survivors:
#                                           #   cd <dir> && mutmut results && mutmut show <mutant>
#                                           # and to resume an interrupted run: cd <dir> && mutmut run
#
# Cost: migrate/ alone is ~3,700 mutants, about an hour with JOBS=2 on a loaded 2-core machine; run one
# scope at a time. The summarizer below also works on a partial run (unchecked mutants are counted apart).
#
# Needs mutmut in the environment (`pip install -e '.[dev]'` brings it; so does `pip install mutmut`).
# The run happens in a scratch copy of src/, tests/ and pyproject.toml, configured by a setup.cfg written
# there, so the work tree is never mutated and two runs cannot collide.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-$here/.venv/bin/python}"
[ -x "$py" ] || py="$(command -v python3)"
mutmut="$(dirname "$py")/mutmut"
[ -x "$mutmut" ] || mutmut="$(command -v mutmut)" || { echo "mutation.sh: mutmut is not installed (pip install mutmut)" >&2; exit 2; }

declare -A SOURCES=(
  [_retry]="src/holyclient/_core/_retry.py"
  [_base]="src/holyclient/_core/_request.py src/holyclient/_core/_redact.py src/holyclient/_core/_parse.py src/holyclient/_core/_sse.py"
  [_transport]="src/holyclient/_http/_transport.py src/holyclient/_http/_aiohttp.py"
  [batch]="src/holyclient/batch/*"
  [tokens]="src/holyclient/tokens/*.py src/holyclient/truncation.py"
  [migrate]="src/holyclient/migrate/*"
  [router]="src/holyclient/router/*.py"
  # the routing logic alone, without the Client plumbing (_router.py, _shell.py, _sender.py)
  [router_logic]="src/holyclient/router/_breaker.py src/holyclient/router/_core.py src/holyclient/router/_mirror.py src/holyclient/router/_select.py src/holyclient/router/_stats.py src/holyclient/router/_target.py src/holyclient/router/_usage.py"
  # the router's Client plumbing: the call-level caller, the shell, the single-attempt sender
  [router_front]="src/holyclient/router/_router.py src/holyclient/router/_caller.py src/holyclient/router/_shell.py src/holyclient/router/_sender.py"
  [ratelimit]="src/holyclient/ratelimit/*.py"
  [batch_send]="src/holyclient/_send/_direct.py src/holyclient/batch/_process.py"
  # the send path: measured as its two halves (send_core, send_rest), one run at a time
  [send]="src/holyclient/_send/*.py"
  # one attempt and one call: the pipeline and its data, attempts, the retrying callers, the client's base
  [send_core]="src/holyclient/_send/_pipeline.py src/holyclient/_send/_steps.py src/holyclient/_send/_attempts.py src/holyclient/_send/_calls.py src/holyclient/_send/_base_client.py"
  # what a call hands back: streams, raw and streamed responses, pages, stream helpers' shells,
  # client.get/post/..., the recorder, the named functions of the face
  [send_rest]="src/holyclient/_send/__init__.py src/holyclient/_send/_callsite.py src/holyclient/_send/_custom_requests.py src/holyclient/_send/_event_stream.py src/holyclient/_send/_features.py src/holyclient/_send/_pagination.py src/holyclient/_send/_recorder.py src/holyclient/_send/_response.py src/holyclient/_send/_streaming.py"
  # the price table, costs, usage tracking, the budget policy, the charging declarations and ledger
  [pricing]="src/holyclient/pricing/*.py"
)
# Each mutant runs every selected test that reaches its function: a file that starts a redis-server per
# test (test_batch_shard_lease.py, ~3.5 s a test) tripled the cost of every batch_send survivor and only
# re-proved what in-process tests prove, so batch_send leaves it out (the ratelimit scope keeps it).
# send and pricing reach almost every test of the client (every call goes through the pipeline and the
# tracker): their selections are the in-process files and the local-server files whose tests take
# under a second (no subprocess, no redis-server, no Prism); test_charging_declarations.py (104 calls,
# ~25 s) stays in pricing because it is the one test that walks every endpoint's declaration.
declare -A TESTS=(
  [_retry]="tests/test_retries.py tests/test_retry_policy_edges.py tests/test_respx.py"
  [_base]="tests/test_client_basics.py tests/test_errors.py tests/test_streaming.py tests/test_respx.py tests/test_request_bodies.py tests/test_errors_never_carry_the_key.py tests/test_send_errors_translated.py tests/test_stream_error_events.py tests/test_base_sans_io_edges.py"
  [_transport]="tests/test_transport_aiohttp.py tests/test_pool.py tests/test_respx.py tests/test_errors.py"
  [batch]="tests/test_batch_runner.py tests/test_batch_io.py tests/test_batch_ratelimit.py tests/test_batch_cli.py"
  [tokens]="tests/test_bounded_counting.py tests/test_tokens.py tests/test_truncation.py tests/test_cli_estimate.py tests/test_cli_estimate_fit.py tests/test_tokens_tools_padding.py tests/test_messages_any_form.py tests/test_token_count_request_forms.py tests/test_token_count_message_parts.py"
  [migrate]="tests/migrate tests/bad_input/test_migrate_rows.py"
  [router]="tests/test_router_split.py tests/test_router_local_servers.py tests/test_router_mirror.py tests/test_router_mutation_kills.py tests/test_router_logic_mutation_kills.py tests/test_router_front_mutation_kills.py tests/test_call_extension_point.py tests/otel/test_otel_router_batch.py tests/test_compare.py tests/test_recorder.py tests/test_send_pipeline_seams.py"
  [router_logic]="tests/test_router_split.py tests/test_router_local_servers.py tests/test_router_mirror.py tests/test_router_mutation_kills.py tests/test_router_logic_mutation_kills.py tests/test_router_front_mutation_kills.py tests/test_call_extension_point.py tests/otel/test_otel_router_batch.py tests/test_compare.py tests/test_recorder.py tests/test_send_pipeline_seams.py"
  [router_front]="tests/test_router_split.py tests/test_router_local_servers.py tests/test_router_mirror.py tests/test_router_mutation_kills.py tests/test_router_logic_mutation_kills.py tests/test_router_front_mutation_kills.py tests/test_call_extension_point.py tests/otel/test_otel_router_batch.py tests/test_compare.py tests/test_recorder.py tests/test_send_pipeline_seams.py tests/test_batch_endpoints.py"
  [ratelimit]="tests/test_ratelimit_script.py tests/test_ratelimit_script_state.py tests/test_ratelimit_outage_edges.py tests/test_ratelimit_window_edges.py tests/test_ratelimit_mutation_kills.py tests/test_ratelimit_lease_wait.py tests/test_ratelimit_redis_connections.py tests/test_ratelimit_limiter_settings.py tests/test_ratelimit_redis.py tests/test_client_limiter.py tests/test_batch_ratelimit.py tests/test_batch_shard_lease.py tests/test_batch_endpoints.py tests/test_batch_send_mutation_kills.py tests/test_safe_url.py tests/test_send_pipeline_seams.py tests/test_ray_adapter.py tests/bad_input/test_batch_scaleout_rows.py"
  [send]="tests/test_money_survivor_kills.py tests/test_custom_requests.py tests/test_raw_response_reads.py tests/test_recorder_sink.py tests/test_page_edges.py tests/test_stream_helper_shell.py tests/test_feature_status_error.py tests/test_stream_openings.py tests/test_client_settings.py tests/otel/test_otel_stream_closing.py tests/test_send_mutation_kills.py tests/test_client_basics.py tests/test_client_construction.py tests/test_client_options.py tests/test_respx.py tests/test_retries.py tests/test_retry_policy_edges.py tests/test_retry_after_edge_cases.py tests/test_errors.py tests/test_send_errors_translated.py tests/test_send_pipeline_seams.py tests/test_echoed_key_never_kept.py tests/test_keys_never_cross_hosts.py tests/test_streaming.py tests/test_stream_error_events.py tests/test_binary_streaming.py tests/test_stream_charging.py tests/test_stream_charging_local_server.py tests/test_stream_finalisation.py tests/test_call_extension_point.py tests/test_usage_first_calls.py tests/test_recorder.py tests/test_budget_uncertain.py tests/test_budget_cancellation.py tests/test_budget_policy.py tests/test_client_usage_budget.py tests/test_client_limiter.py tests/test_batch_wire.py tests/test_batch_failures.py tests/test_base_sans_io_edges.py tests/test_endpoints_wire.py tests/test_router_front_mutation_kills.py tests/otel/test_otel_spans.py tests/otel/test_otel_streams.py tests/differential/test_raw_responses.py tests/test_chat_stream_helper.py tests/test_chat_stream_state.py tests/test_responses_stream_state.py tests/test_endpoints_local_server.py tests/test_openai_parity.py tests/differential/test_pagination.py tests/differential/test_stream_helper.py tests/differential/test_stored_chat.py tests/differential/test_endpoints.py tests/otel/test_otel_first_call.py"
  [send_core]="tests/test_money_survivor_kills.py tests/test_custom_requests.py tests/test_raw_response_reads.py tests/test_recorder_sink.py tests/test_page_edges.py tests/test_stream_helper_shell.py tests/test_feature_status_error.py tests/test_stream_openings.py tests/test_client_settings.py tests/otel/test_otel_stream_closing.py tests/test_send_mutation_kills.py tests/test_client_basics.py tests/test_client_construction.py tests/test_client_options.py tests/test_respx.py tests/test_retries.py tests/test_retry_policy_edges.py tests/test_retry_after_edge_cases.py tests/test_errors.py tests/test_send_errors_translated.py tests/test_send_pipeline_seams.py tests/test_echoed_key_never_kept.py tests/test_keys_never_cross_hosts.py tests/test_streaming.py tests/test_stream_error_events.py tests/test_binary_streaming.py tests/test_stream_charging.py tests/test_stream_charging_local_server.py tests/test_stream_finalisation.py tests/test_call_extension_point.py tests/test_usage_first_calls.py tests/test_recorder.py tests/test_budget_uncertain.py tests/test_budget_cancellation.py tests/test_budget_policy.py tests/test_client_usage_budget.py tests/test_client_limiter.py tests/test_batch_wire.py tests/test_batch_failures.py tests/test_base_sans_io_edges.py tests/test_endpoints_wire.py tests/test_router_front_mutation_kills.py tests/otel/test_otel_spans.py tests/otel/test_otel_streams.py tests/differential/test_raw_responses.py tests/otel/test_otel_first_call.py"
  [send_rest]="tests/test_custom_requests.py tests/test_raw_response_reads.py tests/test_recorder_sink.py tests/test_page_edges.py tests/test_stream_helper_shell.py tests/test_feature_status_error.py tests/test_stream_openings.py tests/test_client_settings.py tests/otel/test_otel_stream_closing.py tests/test_send_mutation_kills.py tests/test_streaming.py tests/test_stream_error_events.py tests/test_binary_streaming.py tests/test_stream_charging.py tests/test_stream_charging_local_server.py tests/test_stream_finalisation.py tests/test_chat_stream_helper.py tests/test_chat_stream_state.py tests/test_responses_stream_state.py tests/test_recorder.py tests/test_endpoints_wire.py tests/test_endpoints_local_server.py tests/test_client_basics.py tests/test_client_options.py tests/test_respx.py tests/test_call_extension_point.py tests/test_router_front_mutation_kills.py tests/test_send_pipeline_seams.py tests/test_batch_wire.py tests/test_usage_first_calls.py tests/test_echoed_key_never_kept.py tests/test_keys_never_cross_hosts.py tests/test_budget_uncertain.py tests/test_openai_parity.py tests/otel/test_otel_streams.py tests/differential/test_raw_responses.py tests/differential/test_pagination.py tests/differential/test_stream_helper.py tests/differential/test_stored_chat.py tests/differential/test_endpoints.py"
  [pricing]="tests/test_pricing_mutation_kills.py tests/test_money_survivor_kills.py tests/test_usage_reader.py tests/test_cache_write_pricing.py tests/test_stream_left_early.py tests/test_pricing.py tests/test_usage.py tests/test_billed_usage_pricing.py tests/test_budget_policy.py tests/test_budget_uncertain.py tests/test_budget_cancellation.py tests/test_client_usage_budget.py tests/test_charging_declarations.py tests/test_stream_charging.py tests/test_stream_charging_local_server.py tests/test_stream_finalisation.py tests/test_stream_error_events.py tests/test_calibration.py tests/test_estimate_usage.py tests/test_batch_usage_priced.py tests/test_batch_failures.py tests/test_messages_any_form.py tests/test_token_count_quality.py tests/test_cli_estimate.py tests/test_cli_estimate_fit.py tests/test_send_pipeline_seams.py tests/test_usage_first_calls.py tests/test_client_limiter.py tests/test_router_logic_mutation_kills.py tests/test_user_facing_text.py tests/bad_input/test_estimate_money_rows.py tests/bad_input/test_estimate_rows.py tests/bad_input/test_models_rows.py tests/bad_input/test_calibrate_rows.py tests/otel/test_otel_first_call.py"
  [batch_send]="tests/test_batch_wire.py tests/test_batch_runner.py tests/test_batch_failures.py tests/test_batch_endpoints.py tests/test_batch_send_mutation_kills.py tests/test_batch_send_attempts.py tests/test_batch_shard.py tests/test_batch_resume.py tests/test_batch_pack.py tests/test_calibration.py tests/test_send_errors_translated.py tests/test_send_pipeline_seams.py tests/otel/test_otel_router_batch.py tests/test_batch_limiter_feedback.py"
)

scopes=("$@")
[ ${#scopes[@]} -gt 0 ] || scopes=(_retry _base _transport batch tokens migrate router ratelimit batch_send send pricing)
only=() tests=()
for scope in "${scopes[@]}"; do
  [ -n "${SOURCES[$scope]:-}" ] || { echo "mutation.sh: unknown scope '$scope' (known: ${!SOURCES[*]})" >&2; exit 2; }
  only+=(${SOURCES[$scope]}) tests+=(${TESTS[$scope]})
done

work="$(mktemp -d "${TMPDIR:-/tmp}/holyclient-mutation.XXXXXX")"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
cp -r "$here/src" "$here/tests" "$here/pyproject.toml" "$work/"
find "$work" -name __pycache__ -prune -exec rm -rf {} +
# While mutmut records which tests reach which mutated function ("stats"), every call of one sets a
# ContextVar. On Python < 3.12 a garbage collection that starts inside ContextVar.set and runs a
# finaliser that calls a mutated function (a stream dropped unclosed settles through its meter) sets it
# again re-entrantly and crashes the interpreter (CPython gh-148891: a segfault in the stats run).
# So during the stats run garbage is collected after each test, never automatically (mutants run as usual).
mkdir -p "$work/plugins"
cat > "$work/plugins/mutmut_gc_guard.py" <<'EOF'
"""Written by benchmarks/mutation.sh: no automatic garbage collection during mutmut's stats run."""

import gc
import os

import pytest


def _stats() -> bool:
    return os.environ.get("MUTANT_UNDER_TEST") == "stats"


def pytest_sessionstart(session: pytest.Session) -> None:
    if _stats():
        gc.disable()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):  # type: ignore[no-untyped-def]
    yield
    if _stats():
        gc.collect()  # here, outside any ContextVar.set: what finalisers call is this test's


def pytest_sessionfinish(session: pytest.Session) -> None:
    gc.enable()
EOF
# `cd <dir> && ./mutmut ...` later (results, show, run NAMES) uses the same guard
printf '#!/bin/sh\nPYTHONPATH="%s/plugins${PYTHONPATH:+:$PYTHONPATH}" exec "%s" "$@"\n' "$work" "$mutmut" > "$work/mutmut"
chmod +x "$work/mutmut"
mutmut="$work/mutmut"
# mutmut reads [tool.mutmut] from pyproject.toml, else [mutmut] from setup.cfg: keep the config here
{
  echo "[mutmut]"
  echo "source_paths = src"
  printf 'only_mutate =\n'; printf '    %s\n' "${only[@]}"
  printf 'pytest_add_cli_args_test_selection =\n'; printf '    %s\n' "${tests[@]}"
  # slow tests run the CLI in subprocesses that import the installed package, not the mutant: skipped
  printf 'pytest_add_cli_args =\n    -p\n    mutmut_gc_guard\n    -p\n    no:cacheprovider\n    -p\n    no:randomly\n    -q\n    -m\n    %s\n' "${MARK-not slow}"
} > "$work/setup.cfg"

cd "$work"
echo "mutation.sh: scopes ${scopes[*]}; scratch copy $work" >&2
"$mutmut" run --max-children "${JOBS:-1}" >"$work/run.log" 2>&1 || { tail -40 "$work/run.log" >&2; exit 2; }
"$mutmut" results --all true >"$work/results.txt" 2>&1 || "$mutmut" results >"$work/results.txt" 2>&1 || true
"$py" - "$work" <<'EOF'
import json, pathlib, sys
work = pathlib.Path(sys.argv[1])
counts = {}
for line in (work / "results.txt").read_text().splitlines():
    name, _, status = line.strip().rpartition(": ")
    if name:
        counts[status] = counts.get(status, 0) + 1
killed = counts.get("killed", 0) + counts.get("timeout", 0)  # a mutant that hangs was noticed too
total = killed + counts.get("survived", 0) + counts.get("no tests", 0)  # uncovered = survived
rate = 100.0 * killed / total if total else 0.0
print(f"mutants: {sum(counts.values())} {json.dumps(counts, sort_keys=True)}")
print(f"kill rate: {rate:.1f}% ({killed} killed or timed out of {total} checked)")
print("survivors:")
for line in (work / "results.txt").read_text().splitlines():
    if line.strip().endswith((": survived", ": no tests")):
        print("  " + line.strip().rpartition(": ")[0])
EOF
