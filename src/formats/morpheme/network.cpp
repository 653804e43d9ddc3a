// morpheme 5 network definition: node table, names, state machines; JSON and DOT views.
#include "formats/morpheme/network.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace rigrip::morpheme {

using core::fail;
using hexs = core::byte_reader;

const char* node_type_name(std::uint32_t t) {
  // Only types whose meaning the sample networks show (node names, children, inputs).
  switch (t) {
    case 9: return "network";
    case 10: return "state_machine";
    case 20: return "control_parameter_float";
    case 104: return "animation_source";
    case 108: return "blend_n";
    case 112: return "operator_arithmetic";
    case 135: return "mirror_transforms";
    case 142: return "operator_smooth";
    case 181: return "scatter_blend";
    case 400: return "transit_sync_events";
    case 402: return "transit";
    default: return nullptr;
  }
}

bool is_transition_type(std::uint32_t t) { return t >= 400 && t < 500; }

const char* condition_type_name(std::uint16_t t) {
  // Matched against the conditions the sample projects' .mcn files give each transition.
  switch (t) {
    case 601: return "on_message";
    case 606: return "control_parameter_float_greater_equal";
    case 608: return "control_parameter_float_less";
    case 611: return "sync_event";
    default: return nullptr;
  }
}

namespace {

constexpr std::uint32_t max_nodes = 65535;

struct node_layout {
  std::uint64_t size, attribs_count, children, inputs, attribs;
};
node_layout layout_for(unsigned P) {
  // x64: 0xA0 bytes, win32: 0x5C.
  return P == 8 ? node_layout{0xA0, 0x18, 0x28, 0x30, 0x48} : node_layout{0x5C, 0x18, 0x20, 0x24, 0x30};
}

network_node read_node(const sized_reader& s, std::uint64_t at) {
  const unsigned P = s.psize;
  const auto L = layout_for(P);
  (void)s.target(at, 0, L.size, "network node", at);
  network_node n;
  n.type = s.r.u32_at(at);
  n.flags = s.r.u16_at(at + 4);
  n.id = s.r.u16_at(at + 6);
  n.parent = s.r.u16_at(at + 8);
  std::uint16_t nc = s.r.u16_at(at + 0x0A);
  n.max_active_children = s.r.u16_at(at + 0x0C);
  std::uint8_t ni = s.r.u8_at(at + 0x0E);
  n.output_pins = s.r.u8_at(at + 0x0F);
  if (nc) {
    std::uint64_t a = s.target(at, s.ptr_at(at + L.children), 0, "network node children", at + L.children);
    s.r.checked_count_at(a, nc, 2, "network node children");
    for (std::uint16_t i = 0; i < nc; ++i) n.children.push_back(s.r.u16_at(a + 2ull * i));
  }
  if (ni) {
    std::uint64_t a = s.target(at, s.ptr_at(at + L.inputs), 0, "network node inputs", at + L.inputs);
    s.r.checked_count_at(a, ni, 4, "network node inputs");
    for (std::uint8_t i = 0; i < ni; ++i) n.inputs.push_back({s.r.u16_at(a + 4ull * i), s.r.u16_at(a + 4ull * i + 2)});
  }
  std::uint32_t na = s.r.u32_at(at + L.attribs_count);
  if (na > 4096) fail(code::bad_count, "network node declares " + std::to_string(na) + " attributes", s.r.base() + at + L.attribs_count);
  if (na) {
    // Handles: {ptr data, size, u32 alignment} (x64 24 bytes, win32 12); data starts with the
    // attribute header whose type word is at +0x0A (x64) / +0x06 (win32).
    const std::uint64_t hsz = P == 8 ? 24 : 12;
    std::uint64_t a = s.target(at, s.ptr_at(at + L.attribs), 0, "network node attributes", at + L.attribs);
    s.r.checked_count_at(a, na, hsz, "network node attributes");
    for (std::uint32_t i = 0; i < na; ++i) {
      std::uint64_t dp = s.ptr_at(a + hsz * i);
      if (!dp) {
        n.attrib_types.push_back(0xFFFF);
        n.attrib_offsets.push_back(0);
        continue;
      }
      std::uint64_t d = s.target(at, dp, P == 8 ? 0x0C : 0x08, "network node attribute", a + hsz * i);
      n.attrib_types.push_back(s.r.u16_at(d + (P == 8 ? 0x0A : 0x06)));
      n.attrib_offsets.push_back(d);
    }
  }
  return n;
}

constexpr std::uint16_t attrib_state_machine_def = 0x27;

// State-machine definition attribute: u16 default state, u16 state count, ptr states, ptr
// global state, u16 condition count, ptr condition pointers. States (x64 0x30, win32 0x1C):
// u16 node, u16 condition count, ptr conditions, u16 source, u16 destination, u16 exit-condition
// count, ptr, u16, u16 exit-transition count, ptr. Pointers in a state are relative to it.
void read_state_machine_def(const sized_reader& s, std::uint64_t A, const network_def& net, network_state_machine& sm) {
  const unsigned P = s.psize;
  const bool x64 = P == 8;
  (void)s.target(A, 0, x64 ? 0x38 : 0x1C, "state machine definition", A);
  const std::uint64_t o = x64 ? 0x10 : 0x08;
  std::uint16_t def = s.r.u16_at(A + o), ns = s.r.u16_at(A + o + 2);
  std::uint64_t f_states = x64 ? 0x18 : 0x0C, f_conds = x64 ? 0x30 : 0x18, f_nc = x64 ? 0x2A : 0x16;
  std::uint16_t nc = s.r.u16_at(A + f_nc);
  const std::uint64_t esz = x64 ? 0x30 : 0x1C;
  std::uint64_t st = s.target(A, s.ptr_at(A + f_states), esz * ns, "state machine states", A + f_states);
  if (nc) {
    std::uint64_t ca = s.target(A, s.ptr_at(A + f_conds), static_cast<std::uint64_t>(P) * nc, "state machine conditions", A + f_conds);
    for (std::uint16_t i = 0; i < nc; ++i) {
      std::uint64_t field = ca + static_cast<std::uint64_t>(i) * P;
      std::uint64_t c = s.target(A, s.ptr_at(field), 2, "state machine condition", field);
      sm.conditions.push_back({s.r.u16_at(c)});
    }
  }
  std::vector<std::uint16_t> state_nodes;
  for (std::uint16_t i = 0; i < ns; ++i) state_nodes.push_back(s.r.u16_at(st + esz * i));
  if (state_nodes != net.nodes[sm.node].children)
    fail(code::bad_value, "state machine " + std::to_string(sm.node) + ": its definition lists other states than the node's children",
         s.r.base() + st);
  if (def >= ns) fail(code::bad_value, "state machine default state " + std::to_string(def) + " of " + std::to_string(ns), s.r.base() + A + o);
  sm.default_state = state_nodes[def];
  for (auto& t : sm.transitions) {
    auto it = std::find(state_nodes.begin(), state_nodes.end(), t.node);
    std::uint64_t e = st + esz * static_cast<std::uint64_t>(it - state_nodes.begin());
    std::uint16_t n = s.r.u16_at(e + 2);
    std::uint16_t from = s.r.u16_at(e + (x64 ? 0x10 : 0x08)), to = s.r.u16_at(e + (x64 ? 0x12 : 0x0A));
    if (from >= ns || to >= ns || state_nodes[from] != t.from || state_nodes[to] != t.to)
      fail(code::bad_value, "transition node " + std::to_string(t.node) + ": definition and node children disagree on its states",
           s.r.base() + e);
    if (n) {
      std::uint64_t a = s.target(e, s.ptr_at(e + (x64 ? 8 : 4)), 2ull * n, "transition conditions", e + (x64 ? 8 : 4));
      for (std::uint16_t k = 0; k < n; ++k) {
        std::uint16_t ci = s.r.u16_at(a + 2ull * k);
        if (ci >= nc) fail(code::bad_value, "transition condition index " + std::to_string(ci) + " of " + std::to_string(nc), s.r.base() + a);
        t.conditions.push_back(ci);
      }
    }
  }
  sm.has_definition = true;
}

}  // namespace

network_def read_network(const sized_reader& s) {
  const unsigned P = s.psize;
  const bool x64 = P == 8;
  network_def net;
  const auto L = layout_for(P);
  const std::uint64_t f_count = x64 ? 0xA8 : 0x60, f_nodes = x64 ? 0xB0 : 0x64, f_names = x64 ? 0xE8 : 0x80,
                      f_requests = f_names + P, f_events = f_names + 2ull * P;
  (void)s.target(0, 0, f_events + P, "network header", 0);
  net.root_type = s.r.u32_at(0);
  net.animation_set_count = s.r.u16_at(f_nodes + P);
  std::uint32_t count = s.r.u32_at(f_count);
  if (count == 0 || count > max_nodes)
    fail(code::bad_count, "network declares " + std::to_string(count) + " nodes", s.r.base() + f_count);
  std::uint64_t list = s.target(0, s.ptr_at(f_nodes), 0, "network node table", f_nodes);
  s.r.checked_count_at(list, count, P, "network node table");
  net.nodes.resize(count);
  std::vector<bool> seen(count, false);
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint64_t field = list + static_cast<std::uint64_t>(i) * P;
    auto n = read_node(s, s.target(0, s.ptr_at(field), L.size, "network node", field));
    if (n.id != i)
      fail(code::bad_value, "network node table entry " + std::to_string(i) + " holds node " + std::to_string(n.id),
           s.r.base() + field);
    seen[i] = true;
    net.nodes[i] = std::move(n);
  }
  for (const auto& n : net.nodes) {
    if (n.parent != 0xFFFF && n.parent >= count)
      fail(code::bad_value, "network node " + std::to_string(n.id) + " has parent " + std::to_string(n.parent) +
                                " of " + std::to_string(count) + " nodes", s.r.base());
    for (auto c : n.children)
      if (c >= count)
        fail(code::bad_value, "network node " + std::to_string(n.id) + " has child " + std::to_string(c) + " of " +
                                  std::to_string(count) + " nodes", s.r.base());
    for (auto [src, pin] : n.inputs)
      if (src >= count)
        fail(code::bad_value, "network node " + std::to_string(n.id) + " reads node " + std::to_string(src) + " of " +
                                  std::to_string(count) + " nodes", s.r.base());
  }
  // Parent chains must end (a cycle would make every tree walk loop).
  for (const auto& n : net.nodes) {
    std::uint32_t steps = 0;
    for (std::uint16_t p = n.parent; p != 0xFFFF; p = net.nodes[p].parent)
      if (++steps > count)
        fail(code::bad_value, "network node " + std::to_string(n.id) + ": its parent chain has a cycle", s.r.base());
  }
  if (std::uint64_t np = s.ptr_at(f_names)) {
    auto t = read_sdk_id_string_table(s, s.target(0, np, 0, "network node names", f_names));
    for (std::size_t i = 0; i < t.strings.size(); ++i)
      if (i < t.ids.size() && t.ids[i] < count) net.nodes[t.ids[i]].name = t.strings[i];
  }
  if (std::uint64_t p = s.ptr_at(f_requests)) net.requests = read_sdk_string_table(s, s.target(0, p, 0, "network requests", f_requests));
  if (std::uint64_t p = s.ptr_at(f_events)) net.event_tracks = read_sdk_string_table(s, s.target(0, p, 0, "network event tracks", f_events));
  for (const auto& n : net.nodes) {
    if (n.type >= 20 && n.type <= 24 && n.children.empty()) net.control_parameters.push_back(n.id);
    if (n.type != 10) continue;
    network_state_machine sm;
    sm.node = n.id;
    for (auto c : n.children) {
      const auto& ch = net.nodes[c];
      if (is_transition_type(ch.type) && ch.children.size() == 2)
        sm.transitions.push_back({c, ch.children[0], ch.children[1], {}});
      else
        sm.states.push_back(c);
    }
    for (std::size_t k = 0; k < n.attrib_types.size(); ++k)
      if (n.attrib_types[k] == attrib_state_machine_def && n.attrib_offsets[k]) {
        read_state_machine_def(s, n.attrib_offsets[k], net, sm);
        break;
      }
    net.state_machines.push_back(std::move(sm));
  }
  return net;
}

std::string state_name(const network_def& n, std::uint16_t sm_node, std::uint16_t state_node) {
  const auto& prefix = n.nodes[sm_node].name;
  std::string s = n.nodes[state_node].name;
  if (!prefix.empty() && s.size() > prefix.size() + 1 && s.compare(0, prefix.size(), prefix) == 0 && s[prefix.size()] == '|') {
    s = s.substr(prefix.size() + 1);
    auto bar = s.find('|');
    if (bar != std::string::npos) s.resize(bar);
  }
  return s.empty() ? "node_" + std::to_string(state_node) : s;
}

nlohmann::json network_to_json(const network_def& n) {
  using nlohmann::json;
  json nodes = json::array();
  for (const auto& x : n.nodes) {
    const char* tn = node_type_name(x.type);
    json inputs = json::array();
    for (auto [src, pin] : x.inputs) inputs.push_back({{"node", src}, {"pin", pin}});
    nodes.push_back({{"id", x.id},
                     {"name", x.name},
                     {"type", x.type},
                     {"type_name", tn ? json(tn) : json(nullptr)},
                     {"flags", x.flags},
                     {"parent", x.parent == 0xFFFF ? json(nullptr) : json(x.parent)},
                     {"children", x.children},
                     {"inputs", inputs},
                     {"output_pins", x.output_pins},
                     {"attribute_types", x.attrib_types}});
  }
  json sms = json::array();
  for (const auto& sm : n.state_machines) {
    json states = json::array(), trans = json::array();
    for (auto st : sm.states) states.push_back({{"node", st}, {"name", state_name(n, sm.node, st)}});
    for (const auto& t : sm.transitions) {
      const char* tn = node_type_name(n.nodes[t.node].type);
      json conds = json::array();
      for (auto ci : t.conditions) {
        const char* cn = condition_type_name(sm.conditions[ci].type);
        conds.push_back({{"index", ci}, {"type", sm.conditions[ci].type}, {"type_name", cn ? json(cn) : json(nullptr)}});
      }
      trans.push_back({{"node", t.node},
                       {"name", state_name(n, sm.node, t.node)},
                       {"type_name", tn ? json(tn) : json(nullptr)},
                       {"from", state_name(n, sm.node, t.from)},
                       {"to", state_name(n, sm.node, t.to)},
                       {"from_node", t.from},
                       {"to_node", t.to},
                       {"conditions", conds}});
    }
    sms.push_back({{"node", sm.node},
                   {"name", n.nodes[sm.node].name},
                   {"default_state", sm.has_definition ? json(state_name(n, sm.node, sm.default_state)) : json(nullptr)},
                   {"condition_count", sm.conditions.size()},
                   {"state_count", sm.states.size()},
                   {"transition_count", sm.transitions.size()},
                   {"states", states},
                   {"transitions", trans}});
  }
  json cps = json::array();
  for (auto c : n.control_parameters) {
    std::string nm = n.nodes[c].name;
    if (nm.rfind("ControlParameters|", 0) == 0) nm = nm.substr(18);
    const char* tn = node_type_name(n.nodes[c].type);
    cps.push_back({{"node", c}, {"name", nm}, {"type_name", tn ? json(tn) : json(nullptr)}});
  }
  return {{"node_count", n.nodes.size()},
          {"animation_set_count", n.animation_set_count},
          {"nodes", nodes},
          {"control_parameters", cps},
          {"state_machines", sms},
          {"requests", n.requests},
          {"event_tracks", n.event_tracks}};
}

}  // namespace rigrip::morpheme
