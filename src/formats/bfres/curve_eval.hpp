// Curve evaluation helpers beside curve's members (fres.hpp) for the decoder's samplers.
#pragma once

#include <cstddef>

#include "formats/bfres/fres.hpp"

namespace rigrip::bfres {

// c.value_left(frame, lower, cursor) != c.value(frame, cursor), evaluating only where the
// two can differ (a key at `frame` that ends a segment of positive length). Same answer.
[[nodiscard]] bool jumps_at(const curve& c, double frame, std::size_t& lower, std::size_t& cursor);

// What a spline key at `frame` needs from one curve: {c.slope(frame, true), c.value(frame),
// c.slope(frame, false), jumps_at(c, frame)}. Same doubles, same answer.
struct curve_sample {
  double left = 0, value = 0, right = 0;
  bool jump = false;
};

// curve_sample for one curve at frames mostly in increasing order (the hints live here), from
// one segment search per frame, with the curve's constants taken once.
class curve_sampler {
 public:
  explicit curve_sampler(const curve& c);
  [[nodiscard]] curve_sample at(double frame) { return sample(frame, seg_, lower_); }
  // at(frame) without moving the hints (a look back, e.g. just before a key).
  [[nodiscard]] curve_sample peek(double frame) const {
    std::size_t seg = seg_, lower = lower_;
    return sample(frame, seg, lower);
  }

 private:
  [[nodiscard]] curve_sample sample(double frame, std::size_t& seg, std::size_t& lower) const;
  const curve* c_;
  const float* frames_ = nullptr;
  const float* keys_ = nullptr;
  std::size_t n_ = 0, seg_ = 0, lower_ = 0;
  double start_ = 0, end_ = 0, scale_ = 0, offset_ = 0;
  bool fast_ = false, cubic_ = false;
};

}  // namespace rigrip::bfres
