// The RCNN's step loops (reproq/models/rcnn.py) in C++: per step one product h_{t-1} U^λ through ATen and ONE
// fused element-wise pass per row, where the Python loops make ~8 passes over [rows, n, d], each a separate op.
// Same layout and semantics as rcnn.py's _steps and _steps_backward, which are the reference for every line here.
//
// P [B, T, n+1, d]: on entry the projections (W^λ x_t + b^λ, W_i x_t, the last one + b); the forward writes
// λ_t over the first and D_t = c_{t-1} - u_t over the others. The batch is walked in blocks of rows_per_block
// (a block's states stay in cache); within a block's steps the threads share each product (ATen's own threads)
// and the rows of each element-wise pass (at::parallel_for, which is serial unless this file is compiled with
// OpenMP: rcnn_kernel.py). Measured at two threads, this beat giving each thread its own chunk of rows with
// single-threaded products — but both were measured before the OpenMP flag, with every pass on one thread
// (results/bench/README.md).

#include <torch/extension.h>

#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

namespace {

// σ and tanh in float32 as plain arithmetic (Cephes' expf and tanhf polynomials, ~1e-7 relative error), so that
// gcc vectorizes the fused pass; libm's calls would keep it scalar. float64 (the tests' type) uses libm.
inline float exp_float(float x) {
  x = std::min(std::max(x, -87.0f), 88.0f);  // e^88 < FLT_MAX: 2^n below stays a normal float
  // n = round(x / ln 2): adding and taking away 1.5 · 2^23 rounds to an integer without floorf, which gcc 12
  // does not vectorize inside a branch
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;  // x - n ln 2, ln 2 in two parts
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

inline float sigmoid(float x) { return 1.0f / (1.0f + exp_float(-x)); }
inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

inline float tanh_(float x) {
  const float a = std::fabs(x);
  const float big = 1.0f - 2.0f / (exp_float(2.0f * a) + 1.0f);  // |x| > 0.625
  const float z = x * x;  // near 0 an odd polynomial keeps the relative accuracy that 1 - 2/(e^2x + 1) loses
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  return a > 0.625f ? std::copysign(big, x) : small;
}
inline double tanh_(double x) { return std::tanh(x); }

// ``x @ weight.T`` as rcnn.py's _linear computes it: oneDNN's linear for float32 where torch has it, else at::linear.
at::Tensor linear(const at::Tensor& x, const at::Tensor& weight, bool onednn) {
  if (!onednn || x.scalar_type() != at::kFloat) return at::linear(x, weight);
  static const c10::OperatorHandle op =
      c10::Dispatcher::singleton().findSchemaOrThrow("mkldnn::_linear_pointwise", "");
  // boxed: the schema's C++ signature moves between torch versions; a few µs against a [rows, d] × [d, d] product
  std::vector<c10::IValue> stack{x, weight, c10::IValue(), std::string("none"),
                                 c10::List<std::optional<at::Scalar>>(), c10::IValue()};
  op.callBoxed(&stack);
  return stack[0].toTensor();
}

// A fresh buffer of hundreds of MB (H, dP for a training batch) costs page faults: the operating system zeroes
// every page before handing it out and, for huge pages, may first compact memory; in the encoder benchmark at two
// threads that made each repeat's time jump between two levels. The pool keeps such buffers from call to call and
// hands one out again only when nothing but the pool holds it (no tensor, no view of its storage); it keeps at most
// kFreeBuffers unused ones, so it holds no more than the calls in flight need plus those.
constexpr size_t kFreeBuffers = 8;

at::Tensor pooled_empty(at::IntArrayRef sizes, const at::TensorOptions& options) {
  static std::mutex mutex;
  static std::vector<at::Tensor> pool;
  const int64_t numel = c10::multiply_integers(sizes);
  const auto is_free = [](const at::Tensor& t) { return t.use_count() == 1 && t.storage().use_count() == 1; };
  const bool inference = c10::InferenceMode::is_enabled();  // a buffer made there cannot be written outside
  const std::lock_guard<std::mutex> lock(mutex);
  at::Tensor chosen;  // the smallest free buffer that fits
  for (const at::Tensor& t : pool)
    if (is_free(t) && t.dtype() == options.dtype() && t.is_inference() == inference && t.numel() >= numel &&
        (!chosen.defined() || t.numel() < chosen.numel()))
      chosen = t;
  if (!chosen.defined()) {  // none fits: the free ones are dropped, a new one is kept
    pool.erase(std::remove_if(pool.begin(), pool.end(), is_free), pool.end());
    pool.push_back(at::empty({numel}, options));
    chosen = pool.back();
  }
  at::Tensor buffer = chosen.narrow(0, 0, numel).view(sizes);
  chosen.reset();
  size_t free = 0;  // the unused ones beyond kFreeBuffers are dropped, the largest first
  std::sort(pool.begin(), pool.end(), [](const at::Tensor& a, const at::Tensor& b) { return a.numel() < b.numel(); });
  pool.erase(std::remove_if(pool.begin(), pool.end(), [&](const at::Tensor& t) { return is_free(t) && ++free > kFreeBuffers; }),
             pool.end());
  return buffer;
}

// Rows a thread takes at a time within a step: a few cache lines of states each.
constexpr int64_t kRowsPerTask = 16;

template <class scalar_t>
void forward_block(scalar_t* P, scalar_t* H, scalar_t* S, const scalar_t* S0, const at::Tensor& h0, const bool* pad, const at::Tensor& U_T,
                   int64_t r0, int64_t r1, int64_t T, int64_t n, int64_t d, bool onednn) {
  const int64_t r = r1 - r0, step = (n + 1) * d;  // P[b, t] starts at (b T + t) step
  std::vector<scalar_t> c(S0 + r0 * n * d, S0 + r1 * n * d);  // [r, n, d]: c^{(1)}_t .. c^{(n)}_t (+ b)
  const std::vector<scalar_t> zeros(d);  // h_0 U^λ without a given state, and c^{(0)}
  at::Tensor h = h0.defined() ? h0.slice(0, r0, r1).clone() : at::empty({r, d}, U_T.options());  // [r, d]
  for (int64_t t = 0; t < T; ++t) {
    at::Tensor hU;  // [r, d] = h_{t-1} U^λ; h_0 = 0 unless a state is given
    if (t > 0 || h0.defined()) hU = linear(h, U_T, onednn);
    scalar_t* h_ = h.data_ptr<scalar_t>();
    at::parallel_for(0, r, kRowsPerTask, [&](int64_t j0, int64_t j1) {  // the rows of the step over the threads
    std::vector<scalar_t> one_minus_g(d);
    for (int64_t j = j0; j < j1; ++j) {
      const int64_t b = r0 + j;
      scalar_t* p = P + (b * T + t) * step;  // [n+1, d]: λ_t, then D_t
      scalar_t* cj = c.data() + j * n * d;    // [n, d]
      // no condition inside the loops over d, so that gcc vectorizes them
      if (pad != nullptr && pad[b * T + t]) {  // λ = 1: the step leaves every state as it was
        std::fill(p, p + d, scalar_t(1));
        std::fill(one_minus_g.begin(), one_minus_g.end(), scalar_t(0));
      } else {
        const scalar_t* hUj = hU.defined() ? hU.data_ptr<scalar_t>() + j * d : zeros.data();
        for (int64_t k = 0; k < d; ++k) {
          const scalar_t g = sigmoid(p[k] + hUj[k]);
          p[k] = g;
          one_minus_g[k] = 1 - g;
        }
      }
      // i from n down, so that c^{(i-1)}_{t-1} is still the old state when u^{(i)}_t reads it
      for (int64_t i = n - 1; i >= 0; --i) {
        scalar_t* ci = cj + i * d;
        scalar_t* Di = p + (i + 1) * d;
        const scalar_t* below = i > 0 ? cj + (i - 1) * d : zeros.data();
        for (int64_t k = 0; k < d; ++k) {
          const scalar_t D = ci[k] - (Di[k] + below[k]);  // c_{t-1} - u_t, u_t = W_i x_t + c^{(i-1)}_{t-1}
          Di[k] = D;
          ci[k] -= one_minus_g[k] * D;  // λ c_{t-1} + (1 - λ) u_t
        }
      }
      const scalar_t* last = cj + (n - 1) * d;
      scalar_t* Hj = H + (b * T + t) * d;
      for (int64_t k = 0; k < d; ++k) Hj[k] = h_[j * d + k] = tanh_(last[k]);
    }
    });
  }
  std::copy(c.begin(), c.end(), S + r0 * n * d);
}

template <class scalar_t>
void backward_block(const scalar_t* dH, const scalar_t* dS, const scalar_t* H, const scalar_t* P, scalar_t* dP, scalar_t* dS0, scalar_t* dh0, const at::Tensor& U,
                    int64_t r0, int64_t r1, int64_t T, int64_t n, int64_t d, bool onednn) {
  const int64_t r = r1 - r0, step = (n + 1) * d;
  std::vector<scalar_t> dC(dS + r0 * n * d, dS + r1 * n * d);  // [r, n, d]: dL/dc_t, from step t+1 (at t = scalar_t: dS)
  const std::vector<scalar_t> zeros(d);  // dh_T, and dC^{(n+1)}
  at::Tensor da = at::empty({r, d}, U.options());  // [r, d]: dL/d(pre-activation of λ_t), for the product
  at::Tensor dh;  // [r, d]: dL/dh_t through λ_{t+1}, none at t = scalar_t
  for (int64_t t = T - 1; t >= 0; --t) {
    scalar_t* da_ = da.data_ptr<scalar_t>();
    at::parallel_for(0, r, kRowsPerTask, [&](int64_t j0, int64_t j1) {  // the rows of the step over the threads
    std::vector<scalar_t> dg(d);
    for (int64_t j = j0; j < j1; ++j) {
      const int64_t b = r0 + j, at_ = (b * T + t);
      const scalar_t* p = P + at_ * step;  // λ_t, D_t
      scalar_t* dp = dP + at_ * step;
      scalar_t* dCj = dC.data() + j * n * d;
      scalar_t* dlast = dCj + (n - 1) * d;
      const scalar_t* dhj = dh.defined() ? dh.data_ptr<scalar_t>() + j * d : zeros.data();
      for (int64_t k = 0; k < d; ++k) {
        const scalar_t h = H[at_ * d + k];
        const scalar_t dh_k = dH[at_ * d + k] + dhj[k];
        dlast[k] += dh_k * (1 - h * h);  // tanh'
        dg[k] = 0;
      }
      for (int64_t i = 0; i < n; ++i)  // ∂c_t/∂λ = c_{t-1} - u_t = D_t
        for (int64_t k = 0; k < d; ++k) dg[k] += p[(i + 1) * d + k] * dCj[i * d + k];
      // dL/du_t = (1 - λ) dC: the gradient of W_i x_t; λ dC reaches c_{t-1} directly, and u^{(i+1)} reads
      // c^{(i)}_{t-1}. Padding has 1 - λ = 0: nothing flows into its inputs. i upwards: dC^{(i+1)} is still old.
      for (int64_t i = 0; i < n; ++i) {
        scalar_t* dCi = dCj + i * d;
        scalar_t* du = dp + (i + 1) * d;
        const scalar_t* above = i + 1 < n ? dCi + d : zeros.data();
        for (int64_t k = 0; k < d; ++k) {
          const scalar_t one_minus_g = 1 - p[k];
          du[k] = dCi[k] * one_minus_g;
          dCi[k] = dCi[k] - du[k] + above[k] * one_minus_g;
        }
      }
      for (int64_t k = 0; k < d; ++k) dp[k] = da_[j * d + k] = p[k] * (1 - p[k]) * dg[k];  // through σ
    }
    });
    if (t > 0 || dh0 != nullptr) dh = linear(da, U, onednn);  // da U^λᵀ
  }
  std::copy(dC.begin(), dC.end(), dS0 + r0 * n * d);
  if (dh0 != nullptr) std::copy(dh.data_ptr<scalar_t>(), dh.data_ptr<scalar_t>() + r * d, dh0 + r0 * d);
}

// P [B, T, n+1, d] (overwritten with λ_t and D_t), U_T [d, d], S0 [B, n, d], h0 [B, d] or None, pad [B, T] or None
// -> (H [B, T, d], S_T [B, n, d]). All contiguous, on a CPU.
std::vector<at::Tensor> forward(at::Tensor P, const at::Tensor& U_T, const at::Tensor& S0,
                                const std::optional<at::Tensor>& h0, const std::optional<at::Tensor>& pad,
                                int64_t rows_per_block, bool onednn) {
  const int64_t B = P.size(0), T = P.size(1), n = P.size(2) - 1, d = P.size(3);
  at::Tensor H = pooled_empty({B, T, d}, P.options()), S = at::empty({B, n, d}, P.options());
  const at::Tensor h0_ = h0.has_value() ? h0->contiguous() : at::Tensor();
  const at::Tensor pad_ = pad.has_value() ? pad->contiguous() : at::Tensor();
  AT_DISPATCH_FLOATING_TYPES(P.scalar_type(), "rcnn_forward", [&] {
    const at::Tensor S0_ = S0.contiguous();
    for (int64_t r0 = 0; r0 < B; r0 += rows_per_block)  // the blocks one after another
      forward_block<scalar_t>(P.data_ptr<scalar_t>(), H.data_ptr<scalar_t>(), S.data_ptr<scalar_t>(),
                              S0_.data_ptr<scalar_t>(), h0_, pad_.defined() ? pad_.data_ptr<bool>() : nullptr,
                              U_T, r0, std::min(r0 + rows_per_block, B), T, n, d, onednn);
  });
  return {H, S};
}

// dH [B, T, d], dS [B, n, d], U [d, d], H, P as the forward left them, with_h0 -> (dP, dS0, dh0 or None).
std::vector<std::optional<at::Tensor>> backward(const at::Tensor& dH, const at::Tensor& dS, const at::Tensor& U,
                                                const at::Tensor& H, const at::Tensor& P, bool with_h0,
                                                int64_t rows_per_block, bool onednn) {
  const int64_t B = P.size(0), T = P.size(1), n = P.size(2) - 1, d = P.size(3);
  at::Tensor dP = pooled_empty(P.sizes(), P.options()), dS0 = at::empty_like(dS, at::MemoryFormat::Contiguous);
  at::Tensor dh0 = with_h0 ? at::empty({B, d}, P.options()) : at::Tensor();
  const at::Tensor dH_ = dH.contiguous(), dS_ = dS.contiguous();  // a grad_output may be expanded
  AT_DISPATCH_FLOATING_TYPES(P.scalar_type(), "rcnn_backward", [&] {
    for (int64_t r0 = 0; r0 < B; r0 += rows_per_block)
      backward_block<scalar_t>(dH_.data_ptr<scalar_t>(), dS_.data_ptr<scalar_t>(), H.data_ptr<scalar_t>(),
                               P.data_ptr<scalar_t>(), dP.data_ptr<scalar_t>(), dS0.data_ptr<scalar_t>(),
                               with_h0 ? dh0.data_ptr<scalar_t>() : nullptr, U, r0, std::min(r0 + rows_per_block, B),
                               T, n, d, onednn);
  });
  return {dP, dS0, with_h0 ? std::optional<at::Tensor>(dh0) : std::nullopt};
}

// How many threads the element-wise passes' at::parallel_for runs on: 1, whatever torch's count, where this file was
// compiled without OpenMP (reproq/models/rcnn_kernel.py). The encoder benchmark records it.
int64_t pass_threads() {
  std::vector<char> seen(at::get_num_threads(), 0);
  at::parallel_for(0, 1024, 1, [&](int64_t, int64_t) { seen[at::get_thread_num()] = 1; });
  return std::count(seen.begin(), seen.end(), 1);
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "the RCNN's forward steps (reproq/models/rcnn.py _steps)");
  m.def("empty", [](const std::vector<int64_t>& sizes, const at::Tensor& like) { return pooled_empty(sizes, like.options()); },
        "an uninitialised buffer from the pool of large buffers (for the tests)");
  m.def("backward", &backward, "the RCNN's backward steps (reproq/models/rcnn.py _steps_backward)");
  m.def("threads", &pass_threads, "how many threads the element-wise passes run on");
}
