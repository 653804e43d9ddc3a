#include <cstdio>
int main() { std::puts("rigrip"); return 0; }
