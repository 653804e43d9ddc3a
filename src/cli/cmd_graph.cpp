// rigrip graph: a file's animation network (the JSON of `dump --network`) drawn as Graphviz
// DOT, or as SVG through Graphviz's `dot` when the output ends in .svg. Format-agnostic: it
// reads only the network JSON's documented keys.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace rigrip::cli {
namespace {

struct graph_options {
  std::string file;
  std::string output;
  common_options common;
};

// A DOT string literal (names come from game files: escape quotes, backslashes, newlines).
std::string dot_string(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (c == '\n' || c == '\r') {
      r += "\\n";
      continue;
    }
    r += c;
  }
  return r + "\"";
}

std::string str_or(const json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// The last path component of a node name ("StateMachine1|Idle|Walk" -> "Walk").
std::string leaf(const std::string& s) {
  auto p = s.rfind('|');
  return p == std::string::npos ? s : s.substr(p + 1);
}

// Nodes are drawn with their name and type; blend-tree edges run child -> parent (data
// flows up), control-parameter inputs are dotted, each state machine is a cluster of its
// states with its transitions as labelled edges (their conditions).
std::string network_dot(const json& net) {
  std::ostringstream o;
  o << "digraph network {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n  edge [fontsize=9];\n";
  std::set<long> transition_nodes, sm_nodes, drawn;
  for (const auto& sm : net.value("state_machines", json::array())) {
    sm_nodes.insert(sm.value("node", -1L));
    for (const auto& t : sm.value("transitions", json::array())) transition_nodes.insert(t.value("node", -1L));
  }
  std::map<long, const json*> by_id;  // points into net: iterate the member, not a copy
  const json none = json::array();
  const auto nodes_it = net.find("nodes");
  const json& nodes = nodes_it != net.end() && nodes_it->is_array() ? *nodes_it : none;
  for (const auto& n : nodes)
    if (n.is_object()) by_id[n.value("id", -1L)] = &n;
  auto label = [&](long id) {
    auto it = by_id.find(id);
    if (it == by_id.end()) return std::to_string(id);
    std::string name = leaf(str_or(*it->second, "name", ""));
    std::string type = str_or(*it->second, "type_name", "type " + std::to_string(it->second->value("type", 0L)));
    return (name.empty() ? "#" + std::to_string(id) : name) + "\n" + type;
  };
  // State machines: clusters holding their states.
  for (const auto& sm : net.value("state_machines", json::array())) {
    const long smn = sm.value("node", -1L);
    o << "  subgraph cluster_" << smn << " {\n    label=" << dot_string(str_or(sm, "name", "state machine")) << ";\n";
    o << "    style=rounded;\n";
    const std::string def = str_or(sm, "default_state", "");
    for (const auto& st : sm.value("states", json::array())) {
      const long id = st.value("node", -1L);
      const std::string name = str_or(st, "name", std::to_string(id));
      o << "    n" << id << " [label=" << dot_string(name) << ", shape=ellipse"
        << (name == def ? ", peripheries=2" : "") << "];\n";
      drawn.insert(id);
    }
    o << "  }\n";
    for (const auto& t : sm.value("transitions", json::array())) {
      std::string l;
      for (const auto& c : t.value("conditions", json::array())) {
        if (!l.empty()) l += "\n";
        l += str_or(c, "type_name", "condition " + std::to_string(c.value("type", 0L)));
      }
      o << "  n" << t.value("from_node", -1L) << " -> n" << t.value("to_node", -1L) << " [label=" << dot_string(l)
        << ", color=blue];\n";
    }
  }
  // Every other node, and the tree edges between them.
  for (const auto& [id, n] : by_id) {
    if (transition_nodes.count(id) || drawn.count(id)) continue;
    o << "  n" << id << " [label=" << dot_string(label(id)) << (sm_nodes.count(id) ? ", shape=doubleoctagon" : "")
      << "];\n";
  }
  for (const auto& [id, n] : by_id) {
    if (transition_nodes.count(id) || sm_nodes.count(id)) continue;  // their children are drawn above
    for (const auto& c : n->value("children", json::array())) {
      const long child = c.get<long>();
      if (transition_nodes.count(child)) continue;
      o << "  n" << child << " -> n" << id << ";\n";
    }
    for (const auto& in : n->value("inputs", json::array()))
      o << "  n" << in.value("node", -1L) << " -> n" << id << " [style=dotted];\n";
  }
  o << "}\n";
  return o.str();
}

// SVG through Graphviz: DOT into a private temporary, `dot -Tsvg` read back.
result<std::string> svg_of(const std::string& dot) {
  char tmp[] = "/tmp/rigrip-graph-XXXXXX";
  const int fd = mkstemp(tmp);
  if (fd < 0) return make_error(code::io_error, "cannot create a temporary file for Graphviz");
  const bool wrote = ::write(fd, dot.data(), dot.size()) == static_cast<ssize_t>(dot.size());
  ::close(fd);
  std::string svg;
  int status = -1;
  if (wrote) {
    const std::string cmd = std::string("dot -Tsvg ") + tmp + " 2>/dev/null";
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[65536];
      std::size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) svg.append(buf, n);
      status = pclose(p);
    }
  }
  std::remove(tmp);
  if (!wrote) return make_error(code::io_error, "cannot write the temporary DOT file for Graphviz");
  if (status != 0 || svg.empty())
    return make_error(code::unsupported_feature,
                      "SVG output needs Graphviz's `dot` (Debian package graphviz); write .dot instead");
  return svg;
}

int run_graph(const graph_options& o) {
  const auto forced = forced_format(o.common);
  if (!forced) return 2;
  const std::string ext = lower(o.output.substr(o.output.rfind('.') == std::string::npos ? o.output.size()
                                                                                         : o.output.rfind('.')));
  if (ext != ".dot" && ext != ".gv" && ext != ".svg") {
    std::cerr << "error: the output must end in .dot, .gv or .svg\n";
    return 2;
  }
  auto data = load_input(o.file, 1ull << 31, *forced);
  if (!data) return fail(data.error());
  diagnostics d;
  d.file = o.file;
  auto net = dump_graph(data.value(), o.file, o.common.read(), d, *forced);
  if (!net) return fail(net.error());
  std::string text = network_dot(net.value());
  if (ext == ".svg") {
    auto svg = svg_of(text);
    if (!svg) return fail(svg.error());
    text = std::move(svg.value());
  }
  if (auto w = save_text(o.output, text); !w) return fail(w.error());
  print_warnings(d);
  std::cout << "graph: " << o.output << " (" << net.value().value("node_count", 0) << " nodes, "
            << net.value().value("state_machines", json::array()).size() << " state machines)\n";
  return 0;
}

}  // namespace

command add_graph_command(CLI::App& app) {
  auto o = std::make_shared<graph_options>();
  auto* c = app.add_subcommand(
      "graph", "Draw a file's animation network and state machines (Graphviz DOT, or SVG through `dot`)");
  c->add_option("file", o->file, "Input file (a morpheme .nmb bundle)")->required()->check(CLI::ExistingFile);
  c->add_option("-o,--output", o->output, "Output .dot/.gv, or .svg (needs Graphviz)")->required();
  add_common(c, o->common);
  c->footer("Examples:\n  rigrip graph Network_RuntimeBasic1.nmb -o net.svg\n  rigrip dump --network X.nmb");
  return {c, [o] { return run_graph(*o); }};
}

}  // namespace rigrip::cli
