/* SPDX-License-Identifier: MIT */
/* tests/consumers/consumer_cuda.c: a C program linked against repdl::cuda
   (CMake, -DREPDL_CUDA=ON).  It calls two launchers: an argument error,
   which needs no GPU, and the device check, which answers REPDL_OK with a
   usable GPU and REPDL_ERR_CUDA without one.  Exit 0 when both answers are
   among those. */
#include <stdio.h>

#include <repdl/cuda.h>

int main(void)
{
    int bad = repdl_cuda_exp_array_f32(4, NULL, NULL, NULL);
    int dev = repdl_cuda_check_device();
    printf("consumer_cuda: NULL arrays -> %s, device check -> %s\n", repdl_status_string(bad),
           repdl_status_string(dev));
    return bad == REPDL_ERR_INVALID && (dev == REPDL_OK || dev == REPDL_ERR_CUDA) ? 0 : 1;
}
