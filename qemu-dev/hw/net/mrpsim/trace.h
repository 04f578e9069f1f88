#include "trace/trace-hw_net_mrpsim.h"
