#pragma once
#include "low/a.hpp"
