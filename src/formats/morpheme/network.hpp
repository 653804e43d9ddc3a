// morpheme 5 network definition (bundle packet type 10): nodes, their types, parents,
// children and control-parameter inputs, node names, request and event-track names, and the
// state machines (states and transitions) built from them. Layout: README.md here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/morpheme/nmb.hpp"

namespace rigrip::morpheme {

struct network_node {
  std::uint16_t id = 0;
  std::uint32_t type = 0;
  std::uint16_t flags = 0;
  std::uint16_t parent = 0xFFFF;  // 0xFFFF: none
  std::vector<std::uint16_t> children;
  std::vector<std::pair<std::uint16_t, std::uint16_t>> inputs;  // control-parameter inputs: {node, pin}
  std::uint8_t output_pins = 0;
  std::uint16_t max_active_children = 0;
  std::vector<std::uint16_t> attrib_types;  // type word of each attribute the node carries
  std::vector<std::uint64_t> attrib_offsets;  // payload offset of each attribute (0: none)
  std::string name;                         // full path name ("StateMachine1|Idle|..."), may be empty
};

struct network_condition {
  std::uint16_t type = 0;  // 601 message (request), 606/608 control parameter >= / <, 611 sync event
};
struct network_transition {
  std::uint16_t node = 0, from = 0, to = 0;  // node ids
  std::vector<std::uint16_t> conditions;     // indices into network_state_machine::conditions
};
struct network_state_machine {
  std::uint16_t node = 0;
  std::vector<std::uint16_t> states;  // root node of each state
  std::vector<network_transition> transitions;
  // From the state-machine definition attribute, when present (has_definition).
  bool has_definition = false;
  std::uint16_t default_state = 0;  // node id
  std::vector<network_condition> conditions;
};

struct network_def {
  std::uint32_t root_type = 0;
  std::uint16_t animation_set_count = 0;  // u16 after the node table (1 in every sample)
  std::vector<network_node> nodes;  // by id
  std::vector<std::string> requests, event_tracks;
  std::vector<network_state_machine> state_machines;
  std::vector<std::uint16_t> control_parameters;  // node ids of control-parameter nodes
};

// Parses a network packet payload. Damage is an error; a child or input naming a node that
// does not exist is an error too, and so is a parent chain with a cycle.
[[nodiscard]] network_def read_network(const sized_reader& s);

[[nodiscard]] const char* node_type_name(std::uint32_t type);  // nullptr when unknown
[[nodiscard]] const char* condition_type_name(std::uint16_t type);  // nullptr when unknown
[[nodiscard]] bool is_transition_type(std::uint32_t type);
// The short name of a node: the part after its parent state machine's path ("Idle").
[[nodiscard]] std::string state_name(const network_def& n, std::uint16_t sm_node, std::uint16_t state_node);

// The JSON of `rigrip dump --network` (the CLI's `graph` draws it).
[[nodiscard]] nlohmann::json network_to_json(const network_def& n);

}  // namespace rigrip::morpheme
