// The whole device API: include this in code that runs on a PE, CPU thread or GPU kernel.
#pragma once

#include "symmetra/device/amo.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/device/group.hpp"
#include "symmetra/device/rma.hpp"
#include "symmetra/device/signal.hpp"
#include "symmetra/device/sync.hpp"
#include "symmetra/device/wait.hpp"
