# SPDX-License-Identifier: MIT
"""ctypes bindings of librepdl.so for the tests: the C library's answer on
numpy float32 arrays, by a path that shares no code with repdl._C."""
import ctypes

import numpy as np

F, SZ, I, U64 = ctypes.c_float, ctypes.c_size_t, ctypes.c_int, ctypes.c_uint64
FP = ctypes.POINTER(F)
VP = ctypes.c_void_p


class Conv2dShape(ctypes.Structure):
    _fields_ = [(n, SZ) for n in ('n', 'c', 'h', 'w', 'oc', 'kh', 'kw', 'stride_h', 'stride_w',
                                  'pad_h', 'pad_w', 'dil_h', 'dil_w')]


class Pool2dShape(ctypes.Structure):
    _fields_ = [(n, SZ) for n in ('n', 'c', 'h', 'w', 'kh', 'kw', 'stride_h', 'stride_w',
                                  'pad_h', 'pad_w')]


class SgdConfig(ctypes.Structure):
    _fields_ = [('lr', F), ('momentum', F), ('dampening', F), ('weight_decay', F),
                ('nesterov', I)]


class AdamConfig(ctypes.Structure):
    _fields_ = [('lr', F), ('beta1', F), ('beta2', F), ('eps', F), ('weight_decay', F),
                ('decoupled', I)]


class AdamState(ctypes.Structure):
    _fields_ = [('t', U64), ('beta1_pow', F), ('beta2_pow', F)]


def f32(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32))


def p(a):
    return None if a is None else a.ctypes.data_as(VP)


class CLib:
    def __init__(self, path):
        self.path = path
        self.l = ctypes.CDLL(path)
        for name in ('repdl_sum_f32', 'repdl_mean_f32', 'repdl_norm2_f32'):
            getattr(self.l, name).restype = F
            getattr(self.l, name).argtypes = [SZ, VP]
        self.l.repdl_var_f32.restype = F
        self.l.repdl_var_f32.argtypes = [SZ, SZ, VP]
        self.l.repdl_dot_f32.restype = F
        self.l.repdl_dot_f32.argtypes = [SZ, VP, VP]
        self.l.repdl_scale_f32.argtypes = [SZ, F, VP, VP]
        self.l.repdl_dropout_forward_f32.argtypes = [SZ, F, U64, U64, VP, VP, VP]
        self.l.repdl_dropout_backward_f32.argtypes = [SZ, F, VP, VP, VP]
        self.l.repdl_rng_uniform_fill_f32.argtypes = [SZ, U64, U64, F, F, VP]
        self.l.repdl_rng_normal_fill_f32.argtypes = [SZ, U64, U64, F, F, VP]
        self.l.repdl_rng_permutation.argtypes = [SZ, U64, U64, VP]
        self.l.repdl_sqrt_f32.restype = F
        self.l.repdl_sqrt_f32.argtypes = [F]
        self.l.repdl_layer_norm_forward_f32.argtypes = [SZ, SZ, F] + [VP] * 6
        self.l.repdl_rms_norm_forward_f32.argtypes = [SZ, SZ, F] + [VP] * 4
        self.l.repdl_batch_norm_forward_train_f32.argtypes = [SZ, SZ, SZ, F, F] + [VP] * 8
        self.l.repdl_batch_norm_forward_infer_f32.argtypes = [SZ, SZ, SZ, F] + [VP] * 6
        self.l.repdl_gemm_f32.argtypes = [I, I, SZ, SZ, SZ, F, F, VP, SZ, VP, SZ, VP, VP, SZ]
        self.l.repdl_sgd_step_f32.argtypes = [SZ, VP, U64, VP, VP, VP]
        self.l.repdl_adam_step_f32.argtypes = [SZ, VP, VP, VP, VP, VP, VP]

    def ok(self, st, name):
        assert st == 0, f'{name} returned {st}'

    # elementwise
    def unary(self, op, x):
        x = f32(x)
        y = np.empty_like(x)
        getattr(self.l, f'repdl_{op}_array_f32')(SZ(x.size), p(x), p(y))
        return y

    def unary_backward(self, op, x, dy):
        x, dy = f32(x), f32(dy)
        dx = np.empty_like(x)
        getattr(self.l, f'repdl_{op}_backward_array_f32')(SZ(x.size), p(x), p(dy), p(dx))
        return dx

    def mul(self, a, b):
        a, b = f32(a), f32(b)
        y = np.empty_like(a)
        self.l.repdl_mul_f32(SZ(a.size), p(a), p(b), p(y))
        return y

    def scale(self, alpha, x):
        x = f32(x)
        y = np.empty_like(x)
        self.l.repdl_scale_f32(x.size, alpha, p(x), p(y))
        return y

    def sqrt1(self, v):
        return np.float32(self.l.repdl_sqrt_f32(v))

    # reductions
    def full(self, kind, x, ddof=0):
        x = f32(x).ravel()
        if kind == 'var':
            return np.float32(self.l.repdl_var_f32(x.size, ddof, p(x)))
        name = {'sum': 'repdl_sum_f32', 'mean': 'repdl_mean_f32', 'norm': 'repdl_norm2_f32'}[kind]
        return np.float32(getattr(self.l, name)(x.size, p(x)))

    def rows(self, kind, x2, ddof=0):
        x2 = f32(x2)
        R, N = x2.shape
        out = np.empty(R, np.float32)
        name = {'sum': 'sum', 'mean': 'mean', 'var': 'var', 'norm': 'norm2'}[kind]
        if kind == 'var':
            st = self.l.repdl_var_rows_f32(SZ(R), SZ(N), SZ(ddof), p(x2), SZ(N), p(out))
        else:
            st = getattr(self.l, f'repdl_{name}_rows_f32')(SZ(R), SZ(N), p(x2), SZ(N), p(out))
        self.ok(st, name)
        return out

    def dot(self, x, y):
        x, y = f32(x), f32(y)
        return np.float32(self.l.repdl_dot_f32(x.size, p(x), p(y)))

    # softmax and losses
    def softmax(self, x2, log=False):
        x2 = f32(x2)
        y = np.empty_like(x2)
        fn = self.l.repdl_log_softmax_f32 if log else self.l.repdl_softmax_f32
        self.ok(fn(SZ(x2.shape[0]), SZ(x2.shape[1]), p(x2), p(y)), 'softmax')
        return y

    def softmax_backward(self, y, dy, log=False):
        y, dy = f32(y), f32(dy)
        dx = np.empty_like(y)
        fn = self.l.repdl_log_softmax_backward_f32 if log else self.l.repdl_softmax_backward_f32
        self.ok(fn(SZ(y.shape[0]), SZ(y.shape[1]), p(y), p(dy), p(dx)), 'softmax_backward')
        return dx

    def loss(self, ce, x2, target, reduction):
        x2 = f32(x2)
        t = np.ascontiguousarray(np.asarray(target, dtype=np.uint64))
        loss = np.zeros(1, np.float32)
        g = np.empty_like(x2)
        fn = self.l.repdl_cross_entropy_f32 if ce else self.l.repdl_nll_loss_f32
        self.ok(fn(SZ(x2.shape[0]), SZ(x2.shape[1]), I(reduction), p(x2), p(t), p(loss), p(g)),
                'loss')
        return loss[0], g

    def div_count(self, x, count):
        x = f32(x)
        y = np.empty_like(x)
        self.l.repdl_div_count_f32(SZ(x.size), SZ(count), p(x), p(y))
        return y

    def units_combine(self, U, bounds, nodes, V):
        """repdl_units_combine_f32: nodes[i] holds range i's node vectors."""
        nodes = [f32(n) for n in nodes]
        b = (SZ * len(bounds))(*bounds)
        ptrs = (VP * len(nodes))(*[n.ctypes.data_as(VP) for n in nodes])
        out = np.empty(V, np.float32)
        self.ok(self.l.repdl_units_combine_f32(SZ(U), SZ(len(nodes)), b, SZ(V), ptrs, p(out)),
                'units_combine')
        return out

    # matrix products
    def gemm(self, ta, tb, M, N, K, A, B, bias=None):
        A, B = f32(A), f32(B)
        bias = None if bias is None else f32(bias)
        C = np.empty((M, N), np.float32)
        self.ok(self.l.repdl_gemm_f32(ta, tb, M, N, K, 1.0, 0.0, p(A), M if ta else K, p(B),
                                      K if tb else N, p(bias), p(C), N), 'gemm')
        return C

    def linear_forward(self, x, W, b):
        x, W = f32(x), f32(W)
        b = None if b is None else f32(b)
        M, K = x.shape
        N = W.shape[0]
        y = np.empty((M, N), np.float32)
        self.ok(self.l.repdl_linear_forward_f32(SZ(M), SZ(K), SZ(N), p(x), p(W), p(b), p(y)),
                'linear_forward')
        return y

    def linear_backward(self, x, W, dy):
        x, W, dy = f32(x), f32(W), f32(dy)
        M, K = x.shape
        N = W.shape[0]
        dx, dW, db = np.empty((M, K), np.float32), np.empty((N, K), np.float32), \
            np.empty(N, np.float32)
        self.ok(self.l.repdl_linear_backward_f32(SZ(M), SZ(K), SZ(N), p(x), p(W), p(dy), p(dx),
                                                 p(dW), p(db)), 'linear_backward')
        return dx, dW, db

    def _conv_shape(self, x, w, stride, pad, dil):
        return Conv2dShape(*x.shape, w.shape[0], w.shape[2], w.shape[3], *stride, *pad, *dil)

    def conv2d_forward(self, x, w, b, stride, pad, dil):
        x, w = f32(x), f32(w)
        b = None if b is None else f32(b)
        s = self._conv_shape(x, w, stride, pad, dil)
        oh = (x.shape[2] + 2 * pad[0] - dil[0] * (w.shape[2] - 1) - 1) // stride[0] + 1
        ow = (x.shape[3] + 2 * pad[1] - dil[1] * (w.shape[3] - 1) - 1) // stride[1] + 1
        y = np.empty((x.shape[0], w.shape[0], oh, ow), np.float32)
        self.ok(self.l.repdl_conv2d_forward_f32(ctypes.byref(s), p(x), p(w), p(b), p(y)), 'conv')
        return y

    def conv2d_backward(self, x, w, dy, stride, pad, dil):
        x, w, dy = f32(x), f32(w), f32(dy)
        s = self._conv_shape(x, w, stride, pad, dil)
        dx, dw, db = np.empty_like(x), np.empty_like(w), np.empty(w.shape[0], np.float32)
        self.ok(self.l.repdl_conv2d_backward_f32(ctypes.byref(s), p(x), p(w), p(dy), p(dx),
                                                 p(dw), p(db)), 'conv_backward')
        return dx, dw, db

    def _pool(self, x, k, st, pad):
        s = Pool2dShape(*x.shape, *k, *st, *pad)
        oh = (x.shape[2] + 2 * pad[0] - k[0]) // st[0] + 1
        ow = (x.shape[3] + 2 * pad[1] - k[1]) // st[1] + 1
        return s, (x.shape[0], x.shape[1], oh, ow)

    def max_pool2d(self, x, k, st, pad):
        x = f32(x)
        s, shape = self._pool(x, k, st, pad)
        y, idx = np.empty(shape, np.float32), np.empty(shape, np.uint64)
        self.ok(self.l.repdl_max_pool2d_forward_f32(ctypes.byref(s), p(x), p(y), p(idx)), 'maxp')
        return y, idx

    def max_pool2d_backward(self, x, idx, dy, k, st, pad):
        s, _ = self._pool(x, k, st, pad)
        dy, idx = f32(dy), np.ascontiguousarray(idx, dtype=np.uint64)
        dx = np.empty(x.shape, np.float32)
        self.ok(self.l.repdl_max_pool2d_backward_f32(ctypes.byref(s), p(idx), p(dy), p(dx)), 'mb')
        return dx

    def avg_pool2d(self, x, k, st, pad, cip):
        x = f32(x)
        s, shape = self._pool(x, k, st, pad)
        y = np.empty(shape, np.float32)
        self.ok(self.l.repdl_avg_pool2d_forward_f32(ctypes.byref(s), I(cip), p(x), p(y)), 'avgp')
        return y

    def avg_pool2d_backward(self, x, dy, k, st, pad, cip):
        s, _ = self._pool(x, k, st, pad)
        dy = f32(dy)
        dx = np.empty(x.shape, np.float32)
        self.ok(self.l.repdl_avg_pool2d_backward_f32(ctypes.byref(s), I(cip), p(dy), p(dx)), 'ab')
        return dx

    # normalizations
    def layer_norm(self, x2, g, b, eps):
        x2 = f32(x2)
        R, C = x2.shape
        g = None if g is None else f32(g)
        b = None if b is None else f32(b)
        y, m, r = np.empty_like(x2), np.empty(R, np.float32), np.empty(R, np.float32)
        self.ok(self.l.repdl_layer_norm_forward_f32(R, C, eps, p(x2), p(g), p(b), p(y), p(m),
                                                    p(r)), 'ln')
        return y, m, r

    def layer_norm_backward(self, x2, g, m, r, dy):
        x2, dy = f32(x2), f32(dy)
        R, C = x2.shape
        g = None if g is None else f32(g)
        dx, dg, db = np.empty_like(x2), np.empty(C, np.float32), np.empty(C, np.float32)
        self.ok(self.l.repdl_layer_norm_backward_f32(SZ(R), SZ(C), p(x2), p(g), p(m), p(r), p(dy),
                                                     p(dx), p(dg), p(db)), 'lnb')
        return dx, dg, db

    def rms_norm(self, x2, g, eps):
        x2 = f32(x2)
        R, C = x2.shape
        g = None if g is None else f32(g)
        y, r = np.empty_like(x2), np.empty(R, np.float32)
        self.ok(self.l.repdl_rms_norm_forward_f32(R, C, eps, p(x2), p(g), p(y), p(r)), 'rms')
        return y, r

    def rms_norm_backward(self, x2, g, r, dy):
        x2, dy = f32(x2), f32(dy)
        R, C = x2.shape
        g = None if g is None else f32(g)
        dx, dg = np.empty_like(x2), np.empty(C, np.float32)
        self.ok(self.l.repdl_rms_norm_backward_f32(SZ(R), SZ(C), p(x2), p(g), p(r), p(dy), p(dx),
                                                   p(dg)), 'rmsb')
        return dx, dg

    def batch_norm_train(self, x, g, b, rm, rv, eps, momentum):
        x = f32(x)
        n, c = x.shape[0], x.shape[1]
        hw = x.size // (n * c)
        y, sm, sr = np.empty_like(x), np.empty(c, np.float32), np.empty(c, np.float32)
        self.ok(self.l.repdl_batch_norm_forward_train_f32(n, c, hw, eps, momentum, p(x), p(g),
                                                          p(b), p(rm), p(rv), p(y), p(sm), p(sr)),
                'bn')
        return y, sm, sr

    def batch_norm_infer(self, x, g, b, rm, rv, eps):
        x = f32(x)
        n, c = x.shape[0], x.shape[1]
        y = np.empty_like(x)
        self.ok(self.l.repdl_batch_norm_forward_infer_f32(n, c, x.size // (n * c), eps, p(x), p(g),
                                                          p(b), p(rm), p(rv), p(y)), 'bni')
        return y

    def batch_norm_backward(self, x, g, sm, sr, dy):
        x, dy = f32(x), f32(dy)
        n, c = x.shape[0], x.shape[1]
        dx, dg, db = np.empty_like(x), np.empty(c, np.float32), np.empty(c, np.float32)
        self.ok(self.l.repdl_batch_norm_backward_f32(SZ(n), SZ(c), SZ(x.size // (n * c)), p(x),
                                                     p(g), p(sm), p(sr), p(dy), p(dx), p(dg),
                                                     p(db)), 'bnb')
        return dx, dg, db

    # dropout and random numbers
    def dropout(self, x, prob, seed, offset):
        x = f32(x)
        y, mask = np.empty_like(x), np.empty(x.shape, np.uint8)
        self.l.repdl_dropout_forward_f32(x.size, prob, seed, offset, p(x), p(y), p(mask))
        return y, mask

    def dropout_backward(self, prob, mask, dy):
        dy = f32(dy)
        dx = np.empty_like(dy)
        self.l.repdl_dropout_backward_f32(dy.size, prob, p(np.ascontiguousarray(mask)), p(dy),
                                          p(dx))
        return dx

    def uniform(self, n, seed, offset, lo, hi):
        out = np.empty(n, np.float32)
        self.l.repdl_rng_uniform_fill_f32(n, seed, offset, lo, hi, p(out))
        return out

    def normal(self, n, seed, offset, mean, std):
        out = np.empty(n, np.float32)
        self.l.repdl_rng_normal_fill_f32(n, seed, offset, mean, std, p(out))
        return out

    def permutation(self, n, seed, offset):
        out = np.empty(n, np.uint32)
        self.l.repdl_rng_permutation(n, seed, offset, p(out))
        return out

    # optimizers (in place on numpy arrays)
    def sgd_step(self, w, g, buf, lr, momentum, dampening, wd, nesterov, step):
        c = SgdConfig(lr, momentum, dampening, wd, int(nesterov))
        self.l.repdl_sgd_step_f32(w.size, ctypes.byref(c), step, p(f32(g)), p(w), p(buf))

    def adam_init(self):
        s = AdamState()
        self.l.repdl_adam_state_init(ctypes.byref(s))
        return s

    def adam_step(self, s, w, g, m, v, lr, b1, b2, eps, wd, decoupled):
        c = AdamConfig(lr, b1, b2, eps, wd, int(decoupled))
        self.l.repdl_adam_begin_step(ctypes.byref(s), ctypes.byref(c))
        self.l.repdl_adam_step_f32(w.size, ctypes.byref(c), ctypes.byref(s), p(f32(g)), p(w),
                                   p(m), p(v))
