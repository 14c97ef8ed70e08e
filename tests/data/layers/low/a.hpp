#pragma once
#include "high/b.hpp"  // the wrong way: low may not include high
