// The dataset format: records survive a round trip through JSON and through zstd files, bad
// input is reported with its place, and the summary counts what it should.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "dataset/compressed_lines.h"
#include "dataset/dataset_command.h"
#include "dataset/dataset_record.h"

namespace fs = std::filesystem;
using namespace hlsched::dataset;

namespace {

Record sample_record(const std::string &id, const std::string &pipeline, double ms) {
  Record r;
  r.id = id;
  r.provenance = {"2026-12-01T18:00:00Z", "NVIDIA H200", "580.159.04", "abc123", false, "test", "cuda", "h200"};
  r.pipeline.id = pipeline;
  r.pipeline.kind = "random";
  r.pipeline.generator = "random_pipeline";
  r.pipeline.random_seed = 7;
  r.pipeline.random_stages = 3;
  r.schedule.kind = "sample";
  r.schedule.options = "gpu=h200,strategy=sample,seed=1,sample=2";
  r.schedule.sample_seed = 1;
  r.schedule.sample_walk = 2;
  r.schedule.code = "f.compute_root();\n";
  r.schedule.decisions = "hlsched-warm-start-v1\n0 1\nf 42 1 - 0\n";
  r.schedule.spec = {{"funcs", nlohmann::json::array()}};
  Prediction p;
  p.cost_model = "hand";
  p.pipeline_ms = 0.5;
  p.stages.push_back({"f", 0, "own kernel", 0.5, {{"compute", 0.1}, {"dram", 0.4}}, "memory", 1024, 4096, 2048});
  r.predicted = p;
  r.measured.pipeline_ms = ms;
  r.measured.min_ms = ms * 0.9;
  r.measured.repetitions = 5;
  r.measured.output_ok = true;
  r.measured.kernel_busy_ms = ms * 0.8;
  KernelMeasurement k;
  k.name = "_kernel_f_s0_y_yo___block_id_y";
  k.func = "f";
  k.stage = 0;
  k.ms = ms * 0.8;
  k.launches_per_call = 1;
  k.grid = {10, 10, 1};
  k.block = {32, 8, 1};
  k.local_memory_bytes_per_thread = 96;
  k.shared_memory_executed_bytes = 65536;
  r.measured.kernels.push_back(k);
  return r;
}

fs::path scratch(const std::string &name) {
  const fs::path dir = fs::temp_directory_path() / ("hlsched-dataset-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

}  // namespace

TEST_CASE("a record survives JSON unchanged", "[dataset]") {
  const Record r = sample_record("test/r7__s1_2", "random:s7:n3", 0.25);
  const nlohmann::json j = to_json(r);
  CHECK(j["format"] == kRecordFormat);
  CHECK(j["pipeline"]["random"]["seed"] == 7);
  CHECK(j["schedule"]["sample"]["walk"] == 2);
  const Record back = record_from_json(j);
  CHECK(to_json(back) == j);
  REQUIRE(back.predicted.has_value());
  CHECK(back.predicted->stages.at(0).terms_ms.at("dram") == Approx(0.4));
  CHECK(back.measured.kernels.at(0).grid == std::vector<int64_t>{10, 10, 1});
  CHECK(back.measured.kernels.at(0).local_memory_bytes_per_thread == 96);
  CHECK(back.measured.kernels.at(0).shared_memory_executed_bytes == 65536);
  // Collections before the runner recorded local memory read as unknown, not as no spills.
  nlohmann::json old = j;
  old["measured"]["kernels"][0].erase("local_memory_bytes_per_thread");
  CHECK(record_from_json(old).measured.kernels.at(0).local_memory_bytes_per_thread == -1);
}

TEST_CASE("a manual schedule's record has no prediction", "[dataset]") {
  Record r = sample_record("test/blur__manual", "example:blur", 0.02);
  r.pipeline.kind = "example";
  r.schedule = ScheduleRef{};
  r.schedule.kind = "manual";
  r.predicted.reset();
  const nlohmann::json j = to_json(r);
  CHECK(j["predicted"].is_null());
  CHECK_FALSE(j["pipeline"].contains("random"));
  CHECK_FALSE(record_from_json(j).predicted.has_value());
}

TEST_CASE("datasets round-trip through zstd and plain files", "[dataset]") {
  const std::vector<Record> records = {sample_record("t/a", "random:s1:n2", 0.1), sample_record("t/b", "random:s2:n4", 2.5)};
  for (const std::string name : {"round.jsonl.zst", "round.jsonl"}) {
    const fs::path path = scratch(name);
    save_dataset(path, records);
    const std::vector<Record> back = load_dataset(path);
    REQUIRE(back.size() == 2);
    CHECK(to_json(back[1]) == to_json(records[1]));
  }
  // The compressed file is zstd, not text.
  std::ifstream in(scratch("round.jsonl.zst"), std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  CHECK(uint8_t(magic[0]) == 0x28);
  CHECK(uint8_t(magic[3]) == 0xFD);
}

// Runner results and datasets kept in the repository are compressed; `hlsched report` and
// `hlsched train` read them through read_text.
TEST_CASE("xz and zstd files read as their text; damaged or missing ones are errors", "[dataset]") {
  const std::string line = "{\"variants\": [1, 2, 3]}", text = line + "\n";
  for (const std::string kind : {"xz", "zstd"}) {
    const fs::path plain = scratch("results-" + kind + ".json");
    std::ofstream(plain, std::ios::binary) << text;
    const fs::path packed = plain.string() + (kind == "xz" ? ".xz" : ".zst");
    fs::remove(packed);
    if (kind == "xz") REQUIRE(std::system(("xz -q -k " + plain.string()).c_str()) == 0);
    else write_lines(packed, {line});
    CHECK(read_text(packed) == text);
    CHECK(read_text(plain) == text);
    std::ofstream(packed, std::ios::binary | std::ios::trunc) << "not compressed";
    CHECK_THROWS_AS(read_text(packed), std::runtime_error);
  }
  CHECK_THROWS_AS(read_text(scratch("missing.json.xz")), std::invalid_argument);
}

TEST_CASE("bad dataset files are reported with their place", "[dataset]") {
  const fs::path corrupt = scratch("corrupt.jsonl.zst");
  std::ofstream(corrupt, std::ios::binary) << "not zstd at all";
  CHECK_THROWS_WITH(load_dataset(corrupt), Catch::Contains("corrupt zstd"));

  const fs::path missing_field = scratch("missing.jsonl");
  nlohmann::json j = to_json(sample_record("t/x", "random:s1:n2", 1));
  j["measured"].erase("pipeline_ms");
  write_lines(missing_field, {to_json(sample_record("t/ok", "random:s1:n2", 1)).dump(), j.dump()});
  CHECK_THROWS_WITH(load_dataset(missing_field), Catch::Contains("missing.jsonl:2") && Catch::Contains("pipeline_ms"));

  CHECK_THROWS_WITH(load_dataset(scratch("absent.jsonl.zst")), Catch::Contains("cannot read"));
}

TEST_CASE("the summary counts pipelines, schedules and kernel samples", "[dataset]") {
  std::vector<Record> records = {sample_record("t/a", "random:s1:n2", 0.1), sample_record("t/b", "random:s1:n2", 2.5),
                                 sample_record("t/c", "random:s2:n5", 0.7)};
  records[2].schedule.kind = "beam";
  const std::string text = dataset_summary(records);
  CHECK_THAT(text, Catch::Contains("3 records") && Catch::Contains("over 2 pipelines") &&
                       Catch::Contains("beam 1 sample 2") && Catch::Contains("3 kernel samples") &&
                       Catch::Contains("0.1 ms to 2.5 ms"));
}
