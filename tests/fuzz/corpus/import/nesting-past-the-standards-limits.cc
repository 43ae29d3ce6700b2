"#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
#if X
TORCH_LIBRARY(lim, m) {
  m.def("scale(Tensor x) -> Tensor");
}
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#endif
#if A
#elif B0
#elif B1
#elif B2
#elif B3
#elif B4
#elif B5
#elif B6
#elif B7
#elif B8
#elif B9
#elif B10
#elif B11
#elif B12
#elif B13
#elif B14
#elif B15
#elif B16
#elif B17
#elif B18
#elif B19
#elif B20
#elif B21
#elif B22
#elif B23
#elif B24
#elif B25
#elif B26
#elif B27
#elif B28
#elif B29
#endif
const char* s = R"dddddddddddddddddddddddddddddddddddddddd(x)dddddddddddddddddddddddddddddddddddddddd";
