#include "conf_mem.h"
TestSuite(mem_attr);
