// BFRES Euler XYZ rotation frames to quaternions a block at a time (every sampled frame of
// every rotated bone goes through this: the largest cost of a BFRES animation read).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rigrip::bfres {

// core::from_euler_xyz({x[j], y[j], z[j]}) for j < n (n <= max_frames), bit for bit, written
// as x, y, z, w at out[4 * j], four frames per SIMD step. A step takes the path of
// core::euler_xyz_sequence (the products without their exact-zero terms, valid while every
// axis part, partial product and result component is nonzero and the norms are in range);
// where a lane leaves it, the step redoes every product of from_euler_xyz for its four
// frames. Sine and cosine are taken per axis only where the angle's bits differ from the
// previous frame's (held and constant channels).
class euler_xyz_block {
 public:
  static constexpr std::size_t max_frames = 256;
  void convert(const float* x, const float* y, const float* z, std::size_t n, float* out);
  // convert() with continue_hemisphere's rule applied as the frames are written (the same
  // floats as convert() then continue_hemisphere): frame 0 is tested against out[-4 .. -1]
  // (which must hold the quaternion written before it) when first_tested, else kept as computed.
  void convert_continuous(const float* x, const float* y, const float* z, std::size_t n, float* out, bool first_tested);

 private:
  template <bool Signs>
  void convert_impl(const float* x, const float* y, const float* z, std::size_t n, float* out, bool first_tested);
  // Fills s_[k], c_[k] for a[0 .. n); true when a[1 .. n) all repeat a[0]'s bits.
  bool sines(std::size_t k, const float* a, std::size_t n);
  alignas(16) float s_[3][max_frames + 4];  // sin and cos of each half angle
  alignas(16) float c_[3][max_frames + 4];
  // The last angle converted per axis (bits) and its sine and cosine, across blocks.
  std::uint32_t bits_[3]{};
  float last_s_[3]{}, last_c_[3]{};
  alignas(16) float half_[4]{};  // sines(): four half angles, read back one per libm call
  bool have_[3]{};
};

// core::make_hemisphere_continuous's rule applied while writing: quaternion j (q[4j] .. q[4j + 3])
// is negated when its dot product with the one before it as written (q[4j - 4] .. q[4j - 1],
// which must exist) is below zero, in the order ((x x' + y y') + z z') + w w'. n quaternions,
// four per SIMD step; continue_hemisphere_scalar gives the same floats.
void continue_hemisphere(float* q, std::size_t n);
void continue_hemisphere_scalar(float* q, std::size_t n);

}  // namespace rigrip::bfres
