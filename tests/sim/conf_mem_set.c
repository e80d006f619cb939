#include "conf_mem.h"
TestSuite(mem_set);
